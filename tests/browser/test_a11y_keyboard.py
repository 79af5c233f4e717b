"""A board for everyone (issue 39): each game played to its end against the AI with the keyboard
alone — Tab to the board, arrow keys to a cell, Enter to press it, typed numbers and moves, Tab to
the buttons — its smallest board; and a puzzle solved on the board with the arrow keys (issue 41:
"keyboard-playable like the board").  The test chooses each move among the legal moves the server
offers the seat (its render description's actions), then makes it with keys only."""

from __future__ import annotations

import json
import random
import time
import urllib.request
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_play import SMALL, api_create

pytestmark = pytest.mark.browser


def focused(page: Any) -> dict[str, Any]:
    """What has the keyboard focus: its id, its cell (a board cell) and its accessible name."""
    return dict(
        page.evaluate(
            """() => { const e = document.activeElement;
                return {id: e ? e.id : '', cell: e && e.getAttribute ? e.getAttribute('data-cell') : null,
                        label: e && e.getAttribute ? e.getAttribute('aria-label') : null}; }"""
        )
    )


def tab_until(page: Any, want: str, shift: bool = False, limit: int = 80) -> None:
    """Press Tab (or Shift+Tab) until the focus is on the element with id `want` ("cell": any
    board cell)."""
    for _ in range(limit):
        f = focused(page)
        if (want == "cell" and f["cell"] is not None) or f["id"] == want:
            return
        page.keyboard.press("Shift+Tab" if shift else "Tab")
    raise AssertionError(f"Tab never reached {want}: the focus is on {focused(page)}")


def arrow_to(page: Any, target: str) -> None:
    """Move the focus from the focused cell to `target` with the arrow keys: along the column
    first (up, down), then along the row — the board's arrows follow rows and columns."""
    for _ in range(120):
        cur = focused(page)["cell"]
        assert cur is not None, f"the keyboard focus left the board: {focused(page)}"
        if cur == target:
            return
        dx, dy = page.evaluate(
            """([a, b]) => { const at = (id) => { const n = document.querySelector(
                    `svg.board .cell[data-cell="${CSS.escape(id)}"]`).getBBox();
                    return [n.x + n.width / 2, n.y + n.height / 2]; };
                const [ax, ay] = at(a), [bx, by] = at(b); return [bx - ax, by - ay]; }""",
            [cur, target],
        )
        if abs(dy) > 0.3:
            page.keyboard.press("ArrowDown" if dy > 0 else "ArrowUp")
        else:
            page.keyboard.press("ArrowRight" if dx > 0 else "ArrowLeft")
    raise AssertionError(f"the arrow keys never reached {target}")


def view_of(base: str, gid: str, token: str) -> dict[str, Any]:
    req = urllib.request.Request(f"{base}/api/games/{gid}", headers={"X-Seat-Token": token})  # never in a URL
    with urllib.request.urlopen(req, timeout=10) as r:
        return dict(json.loads(r.read()))


def play_number_from_the_keyboard(page: Any, n: int) -> None:
    """On a focused Nume cell: Enter asks the number, type ``n``, Enter plays it; wait until the AI's
    answer is announced."""
    page.keyboard.press("Enter")
    page.wait_for_function("document.activeElement.id === 'number-input'")
    page.keyboard.press("Control+A")
    page.keyboard.type(str(n))
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#announce').textContent.includes('played')")


def back_to_board(page: Any) -> None:
    if focused(page)["cell"] is None:
        tab_until(page, "cell", shift=True)


def type_move(page: Any, move: str) -> None:
    """The typed move: Tab to the move box, type the move in the game's notation, Enter."""
    tab_until(page, "move-input")
    page.keyboard.type(move)
    page.keyboard.press("Enter")


def press_path(page: Any, path: list[str]) -> None:
    back_to_board(page)
    for cell in path:
        arrow_to(page, cell)
        page.keyboard.press("Enter")


def answer_question(page: Any, action: dict[str, Any], rng: random.Random) -> None:
    """After the cells: a number typed in the box that took the focus, or a choice reached by Tab."""
    if action.get("number"):
        page.wait_for_function("document.activeElement && document.activeElement.id === 'number-input'")
        lo, hi = action["number"]
        page.keyboard.press("Control+A")
        page.keyboard.type(str(rng.randint(lo, min(hi, lo + 3))))
        page.keyboard.press("Enter")
    elif action.get("choices"):
        page.wait_for_function("document.activeElement && document.activeElement.classList.contains('choice-btn')")
        for _ in range(rng.randrange(len(action["choices"]))):
            page.keyboard.press("Tab")
        page.keyboard.press("Enter")


def build_order(page: Any, order: dict[str, Any], me: int, rng: random.Random, render: dict[str, Any]) -> None:
    """Nelaxtam: every troop's order by the keyboard — its square (Enter), then its target square
    (Enter) — never two troops on one square and enough landings on the edge; then Tab to "Submit"."""
    setup = [h for h in render.get("highlights") or [] if h.get("kind") == "setup"]
    edge = {h["cell"] for h in setup if h.get("owner") in (me, None)}
    ends = {u["id"]: u.get("cell") for u in order["units"]}
    landing = any("@" in c["token"] for u in order["units"] for c in u["choices"])
    need = render.get("params", {}).get("by_sea", 0) if landing else 0
    back_to_board(page)
    for i, unit in enumerate(order["units"]):
        taken = {c for k, c in ends.items() if k != unit["id"] and c}
        moves = [c for c in unit["choices"] if c.get("path") and c["path"][0] not in taken]
        if landing and i < need:
            moves = [c for c in moves if c["path"][0] in edge] or moves
        if not moves or (not landing and rng.random() < 0.3):
            continue  # holds (its default)
        choice = rng.choice(moves)
        if unit.get("cell"):
            arrow_to(page, unit["cell"])
            page.keyboard.press("Enter")  # this troop is the one being ordered
        arrow_to(page, choice["path"][0])
        page.keyboard.press("Enter")
        ends[unit["id"]] = choice["path"][0]
    tab_until(page, "submit-order")
    page.keyboard.press("Enter")


def play_by_keyboard(page: Any, base: str, gid: str, token: str, rng: random.Random, limit: float) -> int:
    """Plays the seat to the end with keys only; returns the number of moves made."""
    made = 0
    deadline = time.time() + limit
    while not page.locator("#banner").is_visible():
        assert time.time() < deadline, f"the game did not end in {limit} s: {page.locator('#status').inner_text()}"
        view = view_of(base, gid, token)
        render = view["render"]
        order = render.get("order")
        mine_now = view["status"] == "active" and (
            view["to_move"] == view["you"] or (order is not None and not order["submitted"])
        )
        if not mine_now or page.locator("#status").get_attribute("data-turn") != "yours":
            page.wait_for_timeout(100)
            continue
        if order is not None:
            build_order(page, order, view["you"], rng, render)
        else:
            acts = render["actions"]
            with_path = [a for a in acts if a.get("path")]
            buttons = [a for a in acts if not a.get("path")]
            if with_path and (not buttons or rng.random() < 0.75):
                a = rng.choice(with_path)
                press_path(page, a["path"])
                answer_question(page, a, rng)
            else:
                type_move(page, rng.choice(buttons)["move"])
        made += 1
        # the move's new view reached the server, then the page (its status is drawn from it)
        for _ in range(100):
            if view_of(base, gid, token)["version"] != view["version"]:
                break
            page.wait_for_timeout(100)
        page.wait_for_timeout(250)
    return made


@pytest.mark.parametrize("name", ["ikabegama", "nume", "nibble", "nymbat", "nelaxtam"])
def test_a_whole_game_is_played_by_keyboard_alone(server: str, browser: Any, artifacts: Path, name: str) -> None:
    """'keyboard play on every game (cells focusable in a sensible order, arrow keys to move between
    cells, Enter/Space to select and play, Escape to cancel; a text box that takes a move in the
    game's notation) … A browser test plays a whole game of each game by keyboard alone (its smallest
    board where it has one).'"""
    created = api_create(server, {"game": name, "params": SMALL[name], "mode": "ai", "ai_level": 1, "seat": 0})
    gid, token = created["id"], created["tokens"]["0"]
    page = browser.new_context(viewport={"width": 1100, "height": 820}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + created["links"]["0"])
    page.wait_for_selector("svg.board .cell")
    page.wait_for_selector("#status:not(:empty)")
    # the first Tab stop is the skip link; Enter on it puts the focus on the board's one Tab stop
    page.keyboard.press("Tab")
    assert focused(page)["id"] == "skip-board"
    page.keyboard.press("Enter")
    f = focused(page)
    assert f["cell"] is not None and f["label"].startswith(f["cell"]), f
    assert page.locator("svg.board[role=group][aria-label]").count() == 1
    assert page.locator('svg.board .cell[tabindex="0"]').count() == 1  # a roving tabindex: one stop
    rng = random.Random(zlib.crc32(name.encode()))
    made = play_by_keyboard(page, server, gid, token, rng, limit=150.0)
    assert made > 0
    assert view_of(server, gid, token)["status"] != "active"
    page.screenshot(path=str(artifacts / f"a11y-keyboard-{name}.png"))
    assert not errors, errors
    page.context.close()


def test_escape_cancels_and_the_opponents_move_is_announced(server: str, browser: Any) -> None:
    """'Escape to cancel'; 'the board and each cell labelled for screen readers (piece, owner,
    coordinates), the status, the opponent's move … announced through aria-live'."""
    created = api_create(server, {"game": "nume", "params": SMALL["nume"], "mode": "ai", "ai_level": 1, "seat": 0})
    gid, token = created["id"], created["tokens"]["0"]
    page = browser.new_context(viewport={"width": 1100, "height": 820}).new_page()
    page.goto(server + created["links"]["0"])
    page.wait_for_selector("#status[data-turn=yours]")
    assert page.locator("#announce[aria-live=polite]").count() == 1
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    cell = focused(page)["cell"]
    assert focused(page)["label"] == f"{cell}, playable"
    # Enter asks the number; Escape drops the question and the focus is on the same cell again
    page.keyboard.press("Enter")
    page.wait_for_function("document.activeElement.id === 'number-input'")
    page.keyboard.press("Escape")
    page.wait_for_function("!document.querySelector('#prompt .choice')")
    assert focused(page)["cell"] == cell
    assert page.locator("#announce").text_content() == "Selection cancelled."
    # a stone of 2: the cell names its owner and number; the AI's answer is announced with the status
    play_number_from_the_keyboard(page, 2)
    reply = view_of(server, gid, token)["moves"][-1]
    said = page.locator("#announce").text_content()
    assert f"White played {reply['move']}." in said and "your turn" in said, said
    assert focused(page)["cell"] == cell  # the move kept the keyboard on the board
    label = page.locator(f'svg.board .cell[data-cell="{cell}"]').get_attribute("aria-label")
    assert label.startswith(f"{cell}, Black ") and "number 2" in label, label  # "a1, Black group of 1, number 2, …"
    page.context.close()


def test_the_keyboard_stays_on_its_cell_when_the_live_stream_outruns_the_acknowledgement(
    server: str, browser: Any
) -> None:
    """'the focus goes back to the cell the player was on' whatever order the page hears things in:
    here the live stream brings the AI's answer (the player's move and the reply in one) before the
    move's own acknowledgement comes back, so the board is drawn again while the keyboard is still
    in the number question (CI once saw the focus jump to the first playable cell then).  The test
    stands between the page and the server: it holds the acknowledgement back and keeps the move's
    own live change from the page, which then asks the whole view again."""
    created = api_create(server, {"game": "nume", "params": SMALL["nume"], "mode": "ai", "ai_level": 1, "seat": 0})
    gid, token = created["id"], created["tokens"]["0"]
    page = browser.new_context(viewport={"width": 1100, "height": 820}).new_page()
    acks: list[tuple[Any, Any]] = []

    def hold_ack(route: Any) -> None:
        acks.append((route, route.fetch()))  # answered when the test says so

    def stream(ws: Any) -> None:
        upstream = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "change" and msg.get("version") == 1:
                return  # the move alone never reaches the page live: the AI's answer does
            ws.send(message)

        upstream.on_message(down)

    page.route(f"**/api/games/{gid}/moves", hold_ack)
    page.route_web_socket(f"**/api/games/{gid}/ws*", stream)
    page.goto(server + created["links"]["0"])
    page.wait_for_selector("#status[data-turn=yours]")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    cell = focused(page)["cell"]
    play_number_from_the_keyboard(page, 2)
    assert acks, "the move's acknowledgement was held back"
    assert len(view_of(server, gid, token)["moves"]) == 2
    assert focused(page)["cell"] == cell, focused(page)  # the answer came first: the keyboard is on its cell
    route, answer = acks.pop()
    route.fulfill(response=answer)
    page.wait_for_timeout(300)  # the acknowledgement, older than the view shown, changes nothing
    assert focused(page)["cell"] == cell, focused(page)
    page.context.close()


def test_a_puzzle_is_solved_on_the_board_with_the_arrow_keys(server: str, browser: Any, artifacts: Path) -> None:
    """Puzzles 'keyboard-playable like the board' (issue 41): from the move box, Shift+Tab to the
    board, the arrows to the step's cell, Enter; the keyboard stays on the board between steps (a
    button's step is typed)."""
    from tests.browser.test_puzzles import mine, open_puzzle, puzzle

    p = puzzle(2)
    page = browser.new_context(viewport={"width": 1100, "height": 800}).new_page()
    open_puzzle(page, server, p)
    tab_until(page, "cell", shift=True)
    first, second = mine(p)
    arrow_to(page, first)
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('Correct')")
    assert focused(page)["cell"] is not None
    page.screenshot(path=str(artifacts / "a11y-puzzle-focus.png"))
    if page.locator(f'svg.board .cell[data-cell="{second}"]').count():
        arrow_to(page, second)
        page.keyboard.press("Enter")
    else:  # a button's step ("end"): typed in the move box, reached by Tab
        tab_until(page, "move-input")
        page.keyboard.type(second)
        page.keyboard.press("Enter")
    page.wait_for_selector("#status:has-text('Solved')")
    assert focused(page)["id"] == "next"
    page.context.close()


def test_the_clock_warning_is_announced(server: str, browser: Any) -> None:
    """'the clock warnings announced through aria-live': the player's own clock passing 10 seconds
    is said once (a 14-second game; the clock runs from the player's second turn)."""
    body = {"game": "nume", "params": SMALL["nume"], "mode": "ai", "ai_level": 1, "seat": 0}
    created = api_create(server, {**body, "clock": {"initial": 14, "increment": 0}})
    page = browser.new_context(viewport={"width": 1100, "height": 820}).new_page()
    page.goto(server + created["links"]["0"])
    page.wait_for_selector("#status[data-turn=yours]")
    type_move(page, "a1=1")
    page.wait_for_function("document.querySelector('#announce').textContent.includes('played')")
    page.wait_for_function(
        "document.querySelector('#announce').textContent.includes('10 seconds left')", timeout=12_000
    )
    assert page.locator("#announce").text_content().strip() == "Your clock: 10 seconds left."
    page.wait_for_selector(".seat .clock.low")  # and the clock turns red under 10 s
    page.context.close()


@pytest.mark.parametrize(
    ("lang", "board", "playable", "skip"),
    [("ko", "판", "둘 수 있음", "판으로 건너뛰기"), ("fr", "Plateau de", "jouable", "Aller au plateau")],
)
def test_the_boards_words_are_in_the_players_language(
    server: str, browser: Any, lang: str, board: str, playable: str, skip: str
) -> None:
    """'Locale keys for every new label in all five languages': the board's name, the cells' names,
    the keys under the board and the skip link in the page's language."""
    created = api_create(server, {"game": "ikabegama", "params": SMALL["ikabegama"], "mode": "ai", "seat": 0})
    page = browser.new_context(viewport={"width": 1100, "height": 820}).new_page()
    path, _, seat = created["links"]["0"].partition("#")
    page.goto(f"{server}{path}?lang={lang}#{seat}")
    page.wait_for_selector("#status[data-turn=yours]")
    assert board in page.locator("svg.board").get_attribute("aria-label")
    assert page.locator("#skip-board").text_content() == skip
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert focused(page)["label"].endswith(playable), focused(page)
    assert page.locator(".board-help").is_visible()
    assert (
        page.locator(".board-help").text_content()
        != "Arrow keys move between the cells, Enter or Space plays the cell, Escape cancels."
    )
    page.context.close()


def test_a_whole_nelaxtam_order_is_typed_and_a_bad_one_is_explained(server: str, browser: Any) -> None:
    """'a text box that takes a move in the game's notation (the server's move format; clear error
    message on a bad move); works for Nelaxtam's orders': a refused order says the rule's reason and
    stays in the box; a whole order typed is sealed."""
    created = api_create(server, {"game": "nelaxtam", "params": SMALL["nelaxtam"], "mode": "ai", "seat": 0})
    gid, token = created["id"], created["tokens"]["0"]
    page = browser.new_context(viewport={"width": 1100, "height": 820}).new_page()
    page.goto(server + created["links"]["0"])
    page.wait_for_selector("#submit-order")
    render = view_of(server, gid, token)["render"]
    edge = {h["cell"] for h in render["highlights"] if h.get("kind") == "setup" and h.get("owner") in (0, None)}
    first, second = render["order"]["units"][:2]
    land = next(c for c in first["choices"] if c.get("path") and c["path"][0] in edge)
    other = next(c for c in second["choices"] if c.get("path") and c["path"][0] != land["path"][0])
    both_on_one = f"{land['token']} {second['id']}@{land['path'][0]}"
    type_move(page, both_on_one)
    page.wait_for_selector("#error:not([hidden])")
    assert page.locator("#error").get_attribute("role") == "alert"
    assert f"both placed on {land['path'][0]}" in page.locator("#error").text_content()
    assert page.input_value("#move-input") == both_on_one  # kept, to be mended
    page.keyboard.press("Control+A")
    page.keyboard.type(f"{land['token']} {other['token']}")
    page.keyboard.press("Enter")
    typed = f"{land['token']} {other['token']}"
    for _ in range(100):  # sealed (pending), or already carried out with the AI's sealed order
        v = view_of(server, gid, token)
        if (v["render"]["order"] and v["render"]["order"]["pending"] == typed) or any(
            typed in m["move"] for m in v["moves"]
        ):
            break
        page.wait_for_timeout(100)
    else:
        raise AssertionError(f"the typed order was not played: {v['render']['order']}, {v['moves']}")
    # the box empties once the page has the answer (it may wait up to 2 s for the socket's view first)
    page.wait_for_function("document.getElementById('move-input').value === ''", timeout=10_000)
    page.context.close()

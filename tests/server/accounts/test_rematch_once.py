"""One rematch per finished game between two accounts (issue 39: "Rematch between accounts
multiplies games"): asked again, the same challenge; asked by both, one agreement; once settled,
no other — at the same instant too."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from fastapi.testclient import TestClient

from tests.server.accounts.test_challenges_ratings import play_challenge

User = Callable[[str], TestClient]


def finished(user: User) -> tuple[TestClient, TestClient, str]:
    """Alice and Bob after a rated game between them that Bob resigned."""
    alice, bob = user("Alice"), user("Bob")
    got = play_challenge(alice, bob, "Bob", rated=True, seat=0)
    assert bob.post(f"/api/games/{got['game_id']}/resign", json={"token": got["token"]}).status_code == 200
    return alice, bob, got["game_id"]


def rematches(client: TestClient) -> list[dict[str, object]]:
    every = client.get("/api/challenges", params={"pending": False}).json()
    return [c for c in every["incoming"] + every["outgoing"] if c["status"] in ("pending", "accepted")]


def test_asking_a_rematch_again_is_the_same_challenge(user: User) -> None:
    alice, bob, gid = finished(user)
    first = alice.post(f"/api/games/{gid}/rematch")
    assert first.status_code == 201, first.text
    again = alice.post(f"/api/games/{gid}/rematch")
    assert again.status_code == 201 and again.json()["id"] == first.json()["id"]
    assert len([c for c in rematches(bob) if c["status"] == "pending"]) == 1


def test_two_crossing_rematch_asks_are_one_agreement_and_the_game_takes_no_other(user: User) -> None:
    alice, bob, gid = finished(user)
    asked = alice.post(f"/api/games/{gid}/rematch").json()
    crossed = bob.post(f"/api/games/{gid}/rematch")
    assert crossed.status_code == 201, crossed.text
    assert crossed.json()["status"] == "accepted" and crossed.json()["id"] == asked["id"]
    new_game = crossed.json()["game_id"]
    for who in (alice, bob):
        late = who.post(f"/api/games/{gid}/rematch")
        assert late.status_code == 409 and late.json()["key"] == "refusal.rematch.played", late.text
    assert [c["game_id"] for c in rematches(alice) if c["status"] == "accepted"].count(new_game) == 1


def test_a_declined_rematch_is_not_asked_again_by_the_one_declined(user: User) -> None:
    """ "repeated offers after a decline are limited", for accounts exactly as for guests: the
    player whose ask was declined may not ask again in that game; the one who declined may."""
    alice, bob, gid = finished(user)
    asked = alice.post(f"/api/games/{gid}/rematch").json()
    assert bob.post(f"/api/challenges/{asked['id']}/decline", json={}).status_code == 200
    again = alice.post(f"/api/games/{gid}/rematch")
    assert again.status_code == 409 and again.json()["key"] == "refusal.rematch.declined_again", again.text
    assert "declined" in again.json()["detail"]
    mine = bob.post(f"/api/games/{gid}/rematch")
    assert mine.status_code == 201 and mine.json()["from"] == "Bob" and mine.json()["status"] == "pending"
    crossed = alice.post(f"/api/games/{gid}/rematch")  # now Alice's ask accepts Bob's
    assert crossed.status_code == 201 and crossed.json()["status"] == "accepted", crossed.text


def test_a_guest_whose_rematch_was_declined_may_not_ask_again(browser: Callable[..., TestClient]) -> None:
    """The same rule between guests: the declined seat's ask is refused, the decliner's is an offer."""
    from tests.server.accounts.test_rematch_seats import guests_game

    host, friend = browser(), browser()
    gid, t0, t1 = guests_game(host, friend)
    assert host.post(f"/api/games/{gid}/rematch", json={"token": t0}).status_code == 201
    assert friend.post(f"/api/games/{gid}/rematch/decline", json={"token": t1}).status_code == 200
    again = host.post(f"/api/games/{gid}/rematch", json={"token": t0})
    assert again.status_code == 409 and again.json()["key"] == "refusal.rematch.declined_again", again.text
    assert friend.post(f"/api/games/{gid}/rematch", json={"token": t1}).json()["rematch"]["from"] == 1


def test_both_asking_a_rematch_at_the_same_instant_make_one_game(user: User) -> None:
    alice, bob, gid = finished(user)
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda who: who.post(f"/api/games/{gid}/rematch"), [alice, bob]))
    assert [a.status_code for a in answers] == [201, 201], [a.text for a in answers]
    games = {a.json().get("game_id") for a in answers} - {None}
    assert len(games) <= 1
    made = [c for c in rematches(alice) if c["status"] == "accepted"]
    pending = [c for c in rematches(alice) if c["status"] == "pending"]
    assert len(made) + len(pending) == 2  # the first game's challenge, and one rematch

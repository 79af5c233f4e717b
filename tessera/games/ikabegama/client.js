// Ikabegamá in the web client, beyond its render description (Game.client_module; the lobby loads it
// because the catalogue says so): the create form's board. The board is text in the game ('plane' or
// 'hexhex:N'); the form offers it as a list of the boards that hold both nests (a hexagon of side N
// reaches N-1 hexes from its centre, midway between the nests), which follows the distance as it is
// typed.

export const refreshOn = ["distance", "dark_nest"];

export function choices(param, value) {
  if (param.name !== "board") return undefined;
  const d = parseInt(value("distance") || "6", 10);
  const custom = (value("dark_nest") || "").trim();
  const least = custom ? 2 : Math.max(2, Math.ceil((Number.isNaN(d) ? 6 : d) / 2) + 1);
  const out = ["plane"];
  for (let n = least; n <= 30; n++) out.push(`hexhex:${n}`);
  return out;
}

export function choiceLabel(param, choice, t) {
  if (param.name !== "board") return undefined;
  const m = /^hexhex:(\d+)$/.exec(String(choice));
  return m ? t("params:ikabegama.board.hexagon", { n: m[1] }) : t("params:ikabegama.board.plane");
}

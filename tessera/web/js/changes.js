// Light moves (docs/render.md): after the first whole view, the game socket sends each new view as
// its change against the last one. Nothing here knows a game: a change is a list of operations on
// the view's JSON. [path, value] sets, [path] deletes a key, [path, start, count, items] splices
// a list; a path is the keys and indices from the view's root.

// The view `doc` changed by `ops` (a new object: `doc` itself is left as it was). Throws on an
// operation that does not fit the view (then the whole view is asked again).
export function applyChange(doc, ops) {
  let out = structuredClone(doc);
  for (const op of ops) {
    if (!Array.isArray(op) || !Array.isArray(op[0]) || ![1, 2, 4].includes(op.length)) throw new Error("not a change operation");
    const path = op[0];
    if (path.length === 0) {
      if (op.length !== 2) throw new Error("only a set may name the whole view");
      out = structuredClone(op[1]);
      continue;
    }
    let parent = out;
    const last = op.length === 4 ? path.length : path.length - 1;
    for (let i = 0; i < last; i++) {
      parent = parent[path[i]];
      if (parent === null || typeof parent !== "object") throw new Error(`the path ${JSON.stringify(path)} leads nowhere`);
    }
    if (op.length === 4) {
      if (!Array.isArray(parent)) throw new Error(`a splice of something that is not a list at ${JSON.stringify(path)}`);
      parent.splice(op[1], op[2], ...op[3]);
    } else if (op.length === 1) {
      delete parent[path[path.length - 1]];
    } else {
      parent[path[path.length - 1]] = op[1];
    }
  }
  return out;
}

const ASK_AGAIN_MS = 1500; // a whole view asked for and not come: asked again after this long

// Follows the views of one socket: `state` messages replace the view, `change` messages apply to
// it when they start from its version. A change that starts elsewhere (a push lost, or come out of
// order) is older than the view (ignored) or leaves a gap: then the whole view is asked again
// (`refresh()`), and changes are ignored until it comes. `onView(view)` gets every new view.
export class ViewStream {
  constructor(onView, refresh) {
    this.onView = onView;
    this.refresh = refresh;
    this.view = null;
    this.askedAt = null; // when a whole view was asked for (null: none awaited)
  }

  // A socket (re)opened: its first message is the whole view.
  reset() {
    this.view = null;
    this.askedAt = null;
  }

  state(view) {
    this.askedAt = null;
    if (this.view && view.version < this.view.version) return; // an old whole view after a newer one
    this.view = view;
    this.onView(structuredClone(view));
  }

  change(msg) {
    const v = this.view;
    if (v && msg.version <= v.version && msg.from !== v.version) return; // already have it (or newer)
    if (!v || msg.from !== v.version) return this.ask();
    let next;
    try {
      next = applyChange(v, msg.ops);
    } catch {
      return this.ask();
    }
    next.version = msg.version;
    this.view = next;
    this.onView(structuredClone(next));
  }

  // The socket says the last view it sent is at `version` (its answer to a ping): a view behind it
  // lost the change that came last, and is asked again.
  behind(version) {
    if (typeof version === "number" && this.view && version > this.view.version) this.ask();
  }

  ask() {
    const now = Date.now();
    if (this.askedAt !== null && now - this.askedAt < ASK_AGAIN_MS) return;
    this.askedAt = now;
    this.refresh();
  }
}

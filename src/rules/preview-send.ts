/**
 * What `(preview-send CLASS message)` prints (CLIPS 6.30's DisplayCore): the around handlers
 * each one level in, then the befores, the primaries (each shadowing the next, one level in)
 * and the afters; `| ` per level, `>>` on entry and `<<` on exit.
 */

/** A handler as the preview names it. */
export interface PreviewedHandler {
  readonly name: string;
  readonly type: string;
  readonly cls: { readonly name: string };
}

/** The handlers one message runs, each kind in the order they run. */
export interface Applicable {
  readonly arounds: readonly PreviewedHandler[];
  readonly befores: readonly PreviewedHandler[];
  readonly primaries: readonly PreviewedHandler[];
  readonly afters: readonly PreviewedHandler[];
}

/** The preview's lines. */
export function previewText(a: Applicable): string {
  let out = "";
  const line = (depth: number, arrow: string, h: PreviewedHandler) => {
    out += `${"| ".repeat(depth)}${arrow} ${h.name} ${h.type} in class ${h.cls.name}\n`;
  };
  const nest = (list: readonly PreviewedHandler[], depth: number, inner: (d: number) => void) => {
    const h = list[0];
    if (h === undefined) {
      inner(depth);
      return;
    }
    line(depth, ">>", h);
    nest(list.slice(1), depth + 1, inner);
    line(depth, "<<", h);
  };
  nest(a.arounds, 0, (depth) => {
    for (const h of a.befores) {
      line(depth, ">>", h);
      line(depth, "<<", h);
    }
    nest(a.primaries, depth, () => {});
    for (const h of a.afters) {
      line(depth, ">>", h);
      line(depth, "<<", h);
    }
  });
  return out;
}

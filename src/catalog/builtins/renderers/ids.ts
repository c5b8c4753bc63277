/** Stable short ids for diagram nodes (`n0`, `n1`, …) keyed by path or trigger. */
export function diagramIds(): (key: string) => string {
  const ids = new Map<string, string>();
  return (key) => {
    let id = ids.get(key);
    if (!id) {
      id = `n${ids.size}`;
      ids.set(key, id);
    }
    return id;
  };
}

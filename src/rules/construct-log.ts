/**
 * The constructs an engine was given, in the order a restore must define them again, and the
 * journal that lets a failed load or defineRule undo what it had defined so far.
 *
 * Indexed by key so that redefining a rule is O(1) (a rule's old text goes, its new text is
 * appended), and journalled so that an atomic definition costs nothing per construct: the engine
 * used to snapshot its whole state before every defineRule, which made defining N rules O(N²).
 */

/** One construct as a snapshot records it. */
export interface ConstructRecord {
  readonly source: string;
  readonly actions?: readonly unknown[];
  /** The module current when it was defined (absent: MAIN), which a restore makes current. */
  readonly module?: string;
}

/** What an atomic section added, undone newest first when the section fails. */
export type Added =
  | { readonly kind: "rule"; readonly name: string; readonly key: string }
  | { readonly kind: "template"; readonly name: string; readonly key: string }
  | { readonly kind: "deffacts"; readonly name: string; readonly key: string };

export class ConstructLog {
  private readonly entries = new Map<string, ConstructRecord>();
  private serial = 0;

  /** `currentModule`: read as each construct is recorded (set-current-module is no construct). */
  constructor(private readonly currentModule: () => string = () => "MAIN") {}

  private stamped(record: ConstructRecord): ConstructRecord {
    const module = this.currentModule();
    return module === "MAIN" ? record : { ...record, module };
  }

  /**
   * Records a rule under its name: a redefinition drops the old text and appends the new one,
   * so a restore defines it after whatever it may now depend on. Returns the key.
   */
  rule(name: string, record: ConstructRecord): string {
    const key = `defrule ${name}`;
    this.entries.delete(key);
    this.entries.set(key, this.stamped(record));
    return key;
  }

  /**
   * Records a template or deffacts. Every one is kept, a redefined deffacts too: a restore
   * replays both texts in order, as the live engine defined them.
   */
  other(record: ConstructRecord): string {
    const key = `#${++this.serial}`;
    this.entries.set(key, this.stamped(record));
    return key;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** The records in definition order. */
  list(): ConstructRecord[] {
    return [...this.entries.values()];
  }

  /** The records in definition order, without those under `keys`. */
  listWithout(keys: ReadonlySet<string>): ConstructRecord[] {
    const out: ConstructRecord[] = [];
    for (const [key, record] of this.entries) if (!keys.has(key)) out.push(record);
    return out;
  }
}

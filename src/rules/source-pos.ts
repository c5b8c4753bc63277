/** Where something starts in CLIPS source text (1-based line and column). */
export interface SourcePos {
  line: number;
  column: number;
}

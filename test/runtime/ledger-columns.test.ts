import { describe, expect, it } from "vitest";
import type { ToolCallsTable } from "../../src/runtime/db/tables.js";
import {
  ATTEMPTED_CONSTANTS,
  attemptedValues,
  MUTABLE_COLUMNS,
  mutableValues,
  TOOL_CALL_COLUMNS,
  toolCallValues,
} from "../../src/runtime/ledger/ledger-columns.js";

/** A row whose every column holds its own name, so a value's position shows its column. */
const named = (changes: Partial<Record<keyof ToolCallsTable, unknown>> = {}) =>
  Object.fromEntries(
    [...TOOL_CALL_COLUMNS, "fence"].map((column) => [
      column,
      column in changes ? changes[column as keyof ToolCallsTable] : column,
    ]),
  ) as unknown as ToolCallsTable;

describe("the ledger's column values", () => {
  it("toolCallValues and mutableValues follow the column lists", () => {
    expect(toolCallValues(named())).toEqual(TOOL_CALL_COLUMNS);
    expect(mutableValues(named())).toEqual(MUTABLE_COLUMNS);
  });

  it("attemptedValues binds the columns a new call's insert does not write as constants", () => {
    const fresh = named({
      status: "attempted",
      ...Object.fromEntries(
        Object.keys(ATTEMPTED_CONSTANTS)
          .filter((column) => column !== "status")
          .map((column) => [column, null]),
      ),
    });
    expect(attemptedValues(fresh)).toEqual(
      TOOL_CALL_COLUMNS.filter((column) => !(column in ATTEMPTED_CONSTANTS)),
    );
    // A row with an outcome is not a new call's: its values would be dropped, so it is refused.
    expect(() => attemptedValues({ ...fresh, result_status: "succeeded" })).toThrow(
      /not a new call's row/,
    );
  });
});

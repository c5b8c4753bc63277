import { describeParity } from "./describe-parity.js";
import { runPrograms } from "./programs/runs.js";

describeParity("runs", runPrograms, {
  // docs/graph.md, "Errors are KeelErrors": empty input and a missing thread_id are KeelErrors
  // (codes EMPTY_INPUT, CHECKPOINTER_REQUIRED), not LangGraph's EmptyInputError / plain Error.
  missingInputErrorNames: "errors are KeelErrors with codes (EMPTY_INPUT)",
});

import { describeParity } from "./describe-parity.js";
import { runPrograms } from "./programs/runs.js";

const keelError = (code: string) => ({ name: "KeelError", code });

describeParity("runs", runPrograms, {
  missingInputErrorNames: {
    doc: "errors are KeelErrors with stable codes",
    keel: {
      nullInputNoCheckpointer: keelError("EMPTY_INPUT"),
      undefinedInputNoCheckpointer: keelError("EMPTY_INPUT"),
      emptyObjectInput: "no error",
      nullInputUnknownThread: keelError("EMPTY_INPUT"),
      noThreadIdWithCheckpointer: keelError("INVALID_ARGUMENT"),
    },
    langgraph: {
      nullInputNoCheckpointer: { name: "EmptyInputError", code: null },
      undefinedInputNoCheckpointer: { name: "EmptyInputError", code: null },
      emptyObjectInput: "no error",
      nullInputUnknownThread: { name: "EmptyInputError", code: null },
      noThreadIdWithCheckpointer: { name: "Error", code: null },
    },
  },
});

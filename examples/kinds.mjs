/**
 * Node kinds for the examples, loaded with `keel run <file> --kinds examples/kinds.mjs`.
 *
 * The seed's triage graph (triage.json) has a node of kind `dspy`: in the original system, a DSPy
 * program. This stand-in does what such a node does in the graph — reads the ticket, writes its
 * result into the state — without a model, so the example runs anywhere. Replace the factory with
 * one that calls your model; the document does not change.
 *
 * A kinds module exports `nodeKinds`: kind name -> factory. A factory gets the node's spec
 * (`{ id, kind }`) once, at compile time, and returns the node function
 * `(state, { node, config }) => update`; the update may only name fields of the document's
 * `state_schema`, with values of their declared types. The file is plain JavaScript so that the
 * built `keel` binary can import it as well as `npm run keel`.
 */
export const nodeKinds = {
  dspy: (node) => (state) => {
    const message = String(state.message ?? "");
    return { message: `[${node.id}: escalated, severity ${state.severity}] ${message}` };
  },
};

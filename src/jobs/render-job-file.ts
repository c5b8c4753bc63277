import { PREAMBLE_V1 } from "./preamble.js";

/** Escapes an attribute value (prompt-preamble.md, delimiter rule 1). */
function escapeAttribute(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/**
 * A node's content inside its `<user-content>` block: a literal closing tag in the content gets
 * a zero-width space before its `>` so the block cannot be closed from inside (rule 2).
 */
export function userContentBlock(nodePath: string, content: string): string {
  const escaped = content.replaceAll("</user-content>", "</user-content\u200B>");
  const body = escaped.endsWith("\n") ? escaped : `${escaped}\n`;
  return `<user-content id="${escapeAttribute(nodePath)}">\n${body}</user-content>`;
}

/** What a job file is rendered from. */
export interface JobFileInput {
  readonly jobId: string;
  readonly actionId: string;
  readonly template: string;
  readonly nodePath: string;
  readonly nodeKind: string;
  /** The node file's text (front matter and body), verbatim. */
  readonly nodeContent: string;
}

/**
 * The job file: the canonical preamble byte for byte, then the action's template with `{{node}}`
 * replaced by the node's `<user-content>` block and `{{kind}}` / `{{action.id}}` by kernel values.
 * A template without `{{node}}` gets the block appended, so the node always reaches the runner.
 *
 * The nonce is not written here: a job file may be read by anyone who can read the project, and
 * the nonce is the job's only credential. Runners receive it from the claim.
 */
export function renderJobFile(input: JobFileInput): string {
  const block = userContentBlock(input.nodePath, input.nodeContent);
  let placed = false;
  const body = input.template.replace(/\{\{\s*([^}]*?)\s*\}\}/g, (whole, name: string) => {
    if (name === "node") {
      placed = true;
      return block;
    }
    if (name === "kind") return input.nodeKind;
    if (name === "action.id") return input.actionId;
    return whole;
  });
  const rendered = placed ? body : `${body.endsWith("\n") ? body : `${body}\n`}\n${block}\n`;
  return `${PREAMBLE_V1}\n${rendered}`;
}

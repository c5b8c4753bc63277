import { tool } from "@langchain/core/tools";
import { z } from "zod";

/** The agent tests' one LangChain tool: adds two numbers, answering their sum as text. */
export const add = tool(({ a, b }: { a: number; b: number }) => String(a + b), {
  name: "add",
  description: "Adds two numbers.",
  schema: z.object({ a: z.number(), b: z.number() }),
});

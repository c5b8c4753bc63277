import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Command } from "commander";
import { capabilitySet, createMemoryMcpServer, serveMcpHttp } from "../../mcp/index.js";
import type { CliModule } from "../command.js";
import { reportError } from "../output.js";
import { openCliStore, type StoreCliOptions, withStoreOptions } from "../scope.js";

interface McpFlags extends StoreCliOptions {
  http?: boolean;
  port?: string;
  host?: string;
  allow?: string[];
  deny?: string[];
  namespace?: string;
}

const many = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `keel mcp`: the decision memory as an MCP server — stdio by default (for an MCP host that
 * starts it), `--http` for Streamable HTTP on 127.0.0.1 (`--port`, `--host`; KEEL_MCP_API_KEY
 * makes every request need the key). `--allow purge` / `--deny propose` change the capabilities.
 */
export const mcpCommands: CliModule = {
  register(program: Command): void {
    withStoreOptions(
      program
        .command("mcp")
        .description(
          "Serve the decision memory (and approvals, runs) as an MCP server (stdio, or --http).",
        )
        .option("--http", "serve Streamable HTTP instead of stdio")
        .option("--port <n>", "HTTP port (default 8765)")
        .option("--host <host>", "HTTP host (default 127.0.0.1)")
        .option(
          "--allow <capability>",
          "grant a capability (purge, approvals, …; repeatable)",
          many,
          [],
        )
        .option("--deny <capability>", "withdraw a capability (repeatable)", many, [])
        .option("--namespace <name>", "default namespace"),
    ).action(async (flags: McpFlags) => {
      try {
        const store = await openCliStore({ ...flags, quiet: true });
        const options = {
          capabilities: capabilitySet(flags.allow, flags.deny),
          namespace: flags.namespace,
        };
        if (flags.http) {
          const served = await serveMcpHttp(store, {
            ...options,
            port: flags.port ? Number(flags.port) : 8765,
            host: flags.host,
            apiKey: process.env.KEEL_MCP_API_KEY || null,
          });
          process.stderr.write(`keel mcp listening on ${served.url}\n`);
          await new Promise<void>((resolve) => served.server.once("close", () => resolve()));
        } else {
          const server = createMemoryMcpServer(store, options);
          await server.connect(new StdioServerTransport());
          await new Promise<void>((resolve) => process.stdin.once("close", () => resolve()));
        }
        await store.close();
      } catch (error) {
        reportError(flags, error);
      }
    });
  },
};

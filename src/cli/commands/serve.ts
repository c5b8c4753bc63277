import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import { DEFAULT_HOST, DEFAULT_PORT, startServer } from "../../server/index.js";
import type { CliModule } from "../command.js";
import { printResult, reportError } from "../output.js";
import { openCliStore, outputOptions, type StoreCliOptions, withStoreOptions } from "../scope.js";

interface ServeFlags extends StoreCliOptions {
  port?: string;
  host?: string;
  config?: string;
  open?: boolean;
  maxBody?: string;
}

/**
 * `keel serve`: the HTTP API (LangGraph-compatible and Keel's own) and the dashboard, on
 * 127.0.0.1:4280 unless told otherwise; stops gracefully on SIGINT/SIGTERM.
 */
export const serveCommands: CliModule = {
  register(program: Command): void {
    withStoreOptions(
      program
        .command("serve")
        .description(
          "Serve the LangGraph-compatible API, Keel's API and the dashboard (127.0.0.1 unless --host).",
        )
        .option("--port <n>", `port (default ${DEFAULT_PORT}; 0 picks a free one)`)
        .option(
          "--host <address>",
          `address to bind (default ${DEFAULT_HOST}); anything else must be named here`,
        )
        .option("--config <file>", "graphs to serve (default ./keel.json, else ./langgraph.json)")
        .option("--max-body <bytes>", "largest request body (default 1048576)")
        .option("--no-open", "do not open the dashboard in a browser"),
    ).action(async (flags: ServeFlags) => {
      const options = outputOptions(flags);
      try {
        const port = flags.port === undefined ? DEFAULT_PORT : Number(flags.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) {
          throw new KeelError("INVALID_ARGUMENT", `--port must be 0–65535, not "${flags.port}".`);
        }
        const maxBody = flags.maxBody === undefined ? undefined : Number(flags.maxBody);
        if (maxBody !== undefined && (!Number.isInteger(maxBody) || maxBody < 1)) {
          throw new KeelError("INVALID_ARGUMENT", `--max-body must be a positive number of bytes.`);
        }
        const configPath =
          flags.config ?? ["keel.json", "langgraph.json"].find((f) => existsSync(f));
        const store = await openCliStore(options);
        const server = await startServer({
          store,
          port,
          ...(flags.host !== undefined ? { host: flags.host, hostExplicit: true } : {}),
          ...(configPath ? { configPath } : {}),
          ...(maxBody ? { maxBodyBytes: maxBody } : {}),
        });
        const login = `${server.url}/login?key=${server.launchKey}`;
        printResult(
          options,
          { ok: true, url: server.url, login, recovered: server.recovered },
          () =>
            [
              `keel serve on ${server.url}  (${server.ctx.assistants.size} assistant(s)${configPath ? ` from ${configPath}` : ""})`,
              `dashboard: ${login}`,
              server.recovered.length ? `took up ${server.recovered.length} unfinished run(s)` : "",
              "Ctrl-C stops it.",
            ]
              .filter(Boolean)
              .join("\n"),
        );
        if (flags.open !== false && process.stdout.isTTY && !options.json) openBrowser(login);
        await new Promise<void>((resolve) => {
          const stop = () => {
            process.off("SIGINT", stop);
            process.off("SIGTERM", stop);
            server
              .close()
              .then(() => store.close())
              .finally(resolve);
          };
          process.on("SIGINT", stop);
          process.on("SIGTERM", stop);
        });
      } catch (error) {
        reportError(options, error);
      }
    });
  },
};

/** Opens a URL in the desktop's browser; nothing happens where there is none. */
function openBrowser(url: string): void {
  const command =
    process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    spawn(command, [url], { stdio: "ignore", detached: true })
      .on("error", () => {})
      .unref();
  } catch {
    // No browser: the URL is printed.
  }
}

import { z } from "zod";
import { VERSION } from "../core/index.js";
import type { RouteDef } from "./route.js";

/**
 * The OpenAPI 3.1 document of the routes, generated from their zod schemas (zod 4's
 * `toJSONSchema`): request bodies and queries as their input types, answers as their output.
 */
export function openApiDocument(routes: readonly RouteDef[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const params = [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string", pattern: "^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,199}$" },
    }));
    const query = route.query ? queryParams(route.query) : [];
    const operation: Record<string, unknown> = {
      summary: route.summary,
      tags: [route.tag],
      "x-keel-capability": route.capability,
      parameters: [...params, ...query],
      responses: {
        "200": route.sse
          ? { description: "Server-sent events", content: { "text/event-stream": {} } }
          : {
              description: "OK",
              content: {
                "application/json": {
                  schema: route.response ? schemaOf(route.response, "output") : {},
                },
              },
            },
        default: {
          description: "Error",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      },
      ...(route.capability === "public" ? { security: [] } : {}),
    };
    if (route.body) {
      operation.requestBody = {
        required: false,
        content: { "application/json": { schema: schemaOf(route.body, "input") } },
      };
    }
    paths[route.path] = { ...(paths[route.path] ?? {}), [route.method]: operation };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Keel server", version: VERSION },
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        apiKey: { type: "apiKey", in: "header", name: "x-api-key" },
      },
      schemas: {
        Error: schemaOf(
          z.object({
            ok: z.literal(false),
            error: z.object({
              code: z.string(),
              message: z.string(),
              details: z.record(z.string(), z.unknown()),
            }),
          }),
          "output",
        ),
      },
    },
    security: [{ bearer: [] }, { apiKey: [] }],
  };
}

function schemaOf(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

function queryParams(schema: z.ZodType): Array<Record<string, unknown>> {
  const json = schemaOf(schema, "input") as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: "query",
    required: json.required?.includes(name) ?? false,
    schema: s,
  }));
}

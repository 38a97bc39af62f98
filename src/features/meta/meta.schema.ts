import { z } from "zod";
import { answers, type RouteDoc } from "../../http/route-docs";

/** The routes a person or a load balancer opens without a key (decisions.md 12). */
export const metaApi = {
  root: {
    operationId: "getServiceInfo",
    summary: "Name the service",
    description: "The service's name and version; no key, no D1.",
    success: answers.whole(z.object({ name: z.string(), version: z.string() }), "The name and version."),
  },
  health: {
    operationId: "checkHealth",
    summary: "Check the configuration",
    description: "The readiness check after a deploy: answers `503` while a setting is missing or invalid. No key, no D1.",
    success: answers.whole(z.object({ status: z.literal("ok") }), "The configuration is complete."),
    errors: {
      "503": {
        description: "Settings are missing or invalid.",
        schema: z.object({ status: z.literal("misconfigured"), settings: z.array(z.string()).describe("The settings, by name (never by value).") }),
      },
    },
  },
  document: {
    operationId: "getOpenApiDocument",
    summary: "The OpenAPI document",
    description: "This document (OpenAPI 3.1), generated from the service's routes; its `servers` entry is the origin asked. The committed copy is `docs/openapi.json`.",
    success: answers.whole(z.object({ openapi: z.string() }).catchall(z.unknown()), "The document."),
  },
  docs: {
    operationId: "getApiReference",
    summary: "The interface as a page",
    description:
      "The document rendered by Scalar's API reference, where calls can be tried (with a key and credentials of your own). The page loads Scalar's renderer from the service's own static assets, under a Content-Security-Policy allowing scripts from the service only; it needs no internet beyond the service.",
    success: answers.html("The reference page."),
  },
} satisfies Record<string, RouteDoc>;

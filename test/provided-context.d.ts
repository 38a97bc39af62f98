import "vitest";

/** What test/stubs/global-setup.ts provides to the tests. */
declare module "vitest" {
  export interface ProvidedContext {
    stubPort: number;
    openapiWrite: boolean;
  }
}

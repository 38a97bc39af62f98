import type { en } from "./en";

/** A catalogue's shape: the keys of English (en.ts), nested as there, every leaf a string. */
type Shape<T> = { readonly [K in keyof T]: T[K] extends string ? string : Shape<T[K]> };

export type Catalogue = Shape<typeof en>;

import { describe, expect, it } from "vitest";
import { parseBasicCredentials } from "../../src/http/basic-credentials";

/** base64 of the UTF-8 bytes of `text`, as a client builds the header. */
const b64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
const basic = (userPass: string) => `Basic ${b64(userPass)}`;

describe("parseBasicCredentials", () => {
  it("reads username and password", () => {
    expect(parseBasicCredentials(basic("admin:secret"))).toEqual({ username: "admin", password: "secret" });
    expect(parseBasicCredentials("Basic YWRtaW46c2VjcmV0")).toEqual({ username: "admin", password: "secret" });
  });

  it("reads the scheme case-insensitively", () => {
    for (const scheme of ["basic", "BASIC", "bAsIc"]) {
      expect(parseBasicCredentials(`${scheme} ${b64("admin:secret")}`), scheme).toEqual({ username: "admin", password: "secret" });
    }
  });

  it("allows several spaces or a tab after the scheme and trailing blanks", () => {
    expect(parseBasicCredentials(`Basic   ${b64("a:b")}`)).toEqual({ username: "a", password: "b" });
    expect(parseBasicCredentials(`Basic\t${b64("a:b")}`)).toEqual({ username: "a", password: "b" });
    expect(parseBasicCredentials(`Basic ${b64("a:b")}  `)).toEqual({ username: "a", password: "b" });
  });

  it("reads base64 with or without its padding", () => {
    // "ab:cd" encodes as "YWI6Y2Q=", one padding character.
    expect(parseBasicCredentials("Basic YWI6Y2Q=")).toEqual({ username: "ab", password: "cd" });
    expect(parseBasicCredentials("Basic YWI6Y2Q")).toEqual({ username: "ab", password: "cd" });
  });

  it("gives null when the header is missing or empty", () => {
    expect(parseBasicCredentials(undefined)).toBeNull();
    expect(parseBasicCredentials("")).toBeNull();
  });

  it("gives null for another scheme or no credentials", () => {
    expect(parseBasicCredentials(`Bearer ${b64("admin:secret")}`)).toBeNull();
    expect(parseBasicCredentials(`Digest ${b64("admin:secret")}`)).toBeNull();
    expect(parseBasicCredentials(`Basically ${b64("admin:secret")}`)).toBeNull();
    expect(parseBasicCredentials(`Basic${b64("admin:secret")}`)).toBeNull();
    expect(parseBasicCredentials("Basic")).toBeNull();
    expect(parseBasicCredentials("Basic ")).toBeNull();
    expect(parseBasicCredentials(b64("admin:secret"))).toBeNull();
  });

  it("gives null for text that is not base64", () => {
    expect(parseBasicCredentials("Basic admin:secret")).toBeNull();
    expect(parseBasicCredentials("Basic !!!!")).toBeNull();
    expect(parseBasicCredentials("Basic YWRt aW46c2VjcmV0")).toBeNull();
    expect(parseBasicCredentials("Basic YWRtaW46c2VjcmV0===")).toBeNull();
    expect(parseBasicCredentials("Basic Y")).toBeNull(); // a single character cannot be base64
    expect(parseBasicCredentials("Basic YWRtaW46c2VjcmV0-_")).toBeNull(); // base64url alphabet
  });

  it("gives null for bytes that are not UTF-8", () => {
    const latin1 = btoa("j\xf6rg:secret"); // ö as one Latin-1 byte
    expect(parseBasicCredentials(`Basic ${latin1}`)).toBeNull();
  });

  it("gives null without a colon", () => {
    expect(parseBasicCredentials(basic("adminsecret"))).toBeNull();
  });

  it("gives null for an empty username", () => {
    expect(parseBasicCredentials(basic(":secret"))).toBeNull();
    expect(parseBasicCredentials(basic(":"))).toBeNull();
  });

  it("gives null for an empty password", () => {
    expect(parseBasicCredentials(basic("admin:"))).toBeNull();
  });

  it("splits at the first colon, so a password may contain colons", () => {
    expect(parseBasicCredentials(basic("admin:pa:ss:"))).toEqual({ username: "admin", password: "pa:ss:" });
    expect(parseBasicCredentials(basic("admin::"))).toEqual({ username: "admin", password: ":" });
  });

  it("keeps spaces inside the credentials", () => {
    expect(parseBasicCredentials(basic("ad min: pass word "))).toEqual({ username: "ad min", password: " pass word " });
  });

  it("reads UTF-8 usernames and passwords", () => {
    expect(parseBasicCredentials(basic("Łukasz:zażółć"))).toEqual({ username: "Łukasz", password: "zażółć" });
    expect(parseBasicCredentials(basic("jörg:🔑"))).toEqual({ username: "jörg", password: "🔑" });
    expect(parseBasicCredentials(basic("山田:パスワード"))).toEqual({ username: "山田", password: "パスワード" });
  });
});

/**
 * The last resort for a character that no supplied font can draw: pdf-lib's standard fonts (Helvetica here) encode
 * WinAnsi only and throw on anything else, so such text is first stripped of accents (ő -> o), then transliterated
 * (Ł -> L, Ж -> Zh, Θ -> Th), and what is left becomes `?`. Characters Helvetica can draw are kept as they are.
 */

// biome-ignore format: a table, kept packed by hand
const LATIN: Record<string, string> = {
  Ł: "L", ł: "l", Đ: "D", đ: "d", Ħ: "H", ħ: "h", ı: "i", ĸ: "k", Ŀ: "L", ŀ: "l", Ŋ: "N", ŋ: "n", Ŧ: "T", ŧ: "t",
  ſ: "s", ẞ: "SS", Ə: "E", ə: "e", Ɛ: "E", ɛ: "e", Ɔ: "O", ɔ: "o", Ɲ: "N", ɲ: "n", Ĳ: "IJ", ĳ: "ij",
};

// biome-ignore format: a table, kept packed by hand
const GREEK: Record<string, string> = {
  Α: "A", Β: "V", Γ: "G", Δ: "D", Ε: "E", Ζ: "Z", Η: "I", Θ: "Th", Ι: "I", Κ: "K", Λ: "L", Μ: "M", Ν: "N", Ξ: "X",
  Ο: "O", Π: "P", Ρ: "R", Σ: "S", Τ: "T", Υ: "Y", Φ: "F", Χ: "Ch", Ψ: "Ps", Ω: "O",
  α: "a", β: "v", γ: "g", δ: "d", ε: "e", ζ: "z", η: "i", θ: "th", ι: "i", κ: "k", λ: "l", μ: "m", ν: "n", ξ: "x",
  ο: "o", π: "p", ρ: "r", σ: "s", ς: "s", τ: "t", υ: "y", φ: "f", χ: "ch", ψ: "ps", ω: "o",
};

// biome-ignore format: a table, kept packed by hand
const CYRILLIC: Record<string, string> = {
  А: "A", Б: "B", В: "V", Г: "G", Д: "D", Е: "E", Ё: "Yo", Ж: "Zh", З: "Z", И: "I", Й: "Y", К: "K", Л: "L", М: "M",
  Н: "N", О: "O", П: "P", Р: "R", С: "S", Т: "T", У: "U", Ф: "F", Х: "Kh", Ц: "Ts", Ч: "Ch", Ш: "Sh", Щ: "Shch",
  Ъ: "", Ы: "Y", Ь: "", Э: "E", Ю: "Yu", Я: "Ya", Є: "Ye", І: "I", Ї: "Yi", Ґ: "G", Ђ: "Dj", Ј: "J", Љ: "Lj",
  Њ: "Nj", Ћ: "C", Џ: "Dz", Ў: "U", Ѓ: "G", Ќ: "K", Ѕ: "Dz",
  а: "a", б: "b", в: "v", г: "g", д: "d", е: "e", ё: "yo", ж: "zh", з: "z", и: "i", й: "y", к: "k", л: "l", м: "m",
  н: "n", о: "o", п: "p", р: "r", с: "s", т: "t", у: "u", ф: "f", х: "kh", ц: "ts", ч: "ch", ш: "sh", щ: "shch",
  ъ: "", ы: "y", ь: "", э: "e", ю: "yu", я: "ya", є: "ye", і: "i", ї: "yi", ґ: "g", ђ: "dj", ј: "j", љ: "lj",
  њ: "nj", ћ: "c", џ: "dz", ў: "u", ѓ: "g", ќ: "k", ѕ: "dz",
};

// biome-ignore format: a table, kept packed by hand
const PUNCTUATION: Record<string, string> = {
  "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2015": "-", "\u2032": "'", "\u2033": '"', "\u2043": "-",
  "\u2212": "-", "\u2044": "/", "\u2215": "/", "\u2024": ".", "\u2027": "-", "\u3000": " ", "\u3001": ",",
  "\u3002": ".", "\uFF0C": ",", "\uFF0E": ".", "\uFF1A": ":", "\uFF08": "(", "\uFF09": ")", "\u30FB": "-",
};

const MARK = /^\p{M}$/u;
const MARKS = /\p{M}/gu;
const UPPER = /^\p{Lu}$/u;

function transliterate(ch: string): string | undefined {
  return LATIN[ch] ?? GREEK[ch] ?? CYRILLIC[ch] ?? PUNCTUATION[ch];
}

/** The letter without its accents (ά -> α, ő -> o). */
function base(ch: string): string {
  return ch.normalize("NFD").replace(MARKS, "");
}

/**
 * What to draw with the standard font for one cluster (a character and its combining marks). `previous` and `next`
 * are the clusters around it on the line, if any: Greek ου is written ou, and a letter that becomes several
 * (Ж -> Zh) is written in capitals beside another capital (ЖУК -> ZHUK). Never throws; the result may be empty
 * (Ъ, a lone mark) and holds only `charset` characters.
 */
export function winAnsiCluster(cluster: string, previous: string | undefined, next: string | undefined, charset: ReadonlySet<number>): string {
  const drawable = (ch: string) => charset.has(ch.codePointAt(0)!);
  const composed = cluster.normalize("NFC");
  if ([...composed].every(drawable)) return composed;
  let out = "";
  for (const ch of composed) {
    if (drawable(ch)) {
      out += ch;
      continue;
    }
    if (MARK.test(ch)) continue; // an accent Helvetica lacks: the letter goes without it
    const plain = base(ch);
    const upsilon = plain === "υ" || plain === "Υ";
    if (upsilon && previous !== undefined && /^[οΟ]$/u.test(base(previous))) {
      out += plain === "Υ" ? "U" : "u"; // ου -> ou
      continue;
    }
    let t = transliterate(ch);
    if (t === undefined && plain !== "" && [...plain].every(drawable)) t = plain;
    if (t === undefined && plain !== "") t = transliterate(plain);
    if (t === undefined) {
      out += drawable("?") ? "?" : "";
      continue;
    }
    const nextBase = next === undefined ? "" : base(next).slice(0, 1);
    const previousBase = previous === undefined ? "" : base(previous).slice(0, 1);
    if (t.length > 1 && UPPER.test(ch) && (UPPER.test(nextBase) || (nextBase === "" && UPPER.test(previousBase)))) t = t.toUpperCase();
    out += [...t].filter(drawable).join("");
  }
  return out;
}

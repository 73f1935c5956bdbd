/**
 * Redis' glob matcher (util.c stringmatchlen), as KEYS and SCAN MATCH use it: `*`, `?`, `[...]`
 * with `^` negation and ranges, and `\` escapes. Ported step by step so odd patterns (an
 * unterminated `[`, a reversed range) behave exactly as in Redis.
 */

/** True when `text` matches the glob `pattern`. */
export function globMatch(pattern: string, text: string): boolean {
  return matchFrom(pattern, 0, text, 0, { skipLonger: false });
}

function matchFrom(
  pattern: string,
  p: number,
  text: string,
  s: number,
  state: { skipLonger: boolean },
): boolean {
  const plen = pattern.length;
  const slen = text.length;
  while (p < plen && s < slen) {
    switch (pattern[p]) {
      case '*': {
        while (p + 1 < plen && pattern[p + 1] === '*') p++;
        if (p + 1 === plen) return true;
        while (s < slen) {
          if (matchFrom(pattern, p + 1, text, s, state)) return true;
          // Once the rest failed from every later position, a longer `*` cannot help either.
          if (state.skipLonger) return false;
          s++;
        }
        state.skipLonger = true;
        return false;
      }
      case '?':
        s++;
        break;
      case '[': {
        p++;
        const not = pattern[p] === '^';
        if (not) p++;
        let match = false;
        for (;;) {
          if (pattern[p] === '\\' && plen - p >= 2) {
            p++;
            if (pattern[p] === text[s]) match = true;
          } else if (pattern[p] === ']') {
            break;
          } else if (p >= plen) {
            p--;
            break;
          } else if (plen - p >= 3 && pattern[p + 1] === '-') {
            let start = pattern.charCodeAt(p);
            let end = pattern.charCodeAt(p + 2);
            const c = text.charCodeAt(s);
            if (start > end) [start, end] = [end, start];
            p += 2;
            if (c >= start && c <= end) match = true;
          } else if (pattern[p] === text[s]) {
            match = true;
          }
          p++;
        }
        if (not) match = !match;
        if (!match) return false;
        s++;
        break;
      }
      case '\\':
        if (plen - p >= 2) p++;
        if (pattern[p] !== text[s]) return false;
        s++;
        break;
      default:
        if (pattern[p] !== text[s]) return false;
        s++;
        break;
    }
    p++;
    if (s === slen) {
      while (pattern[p] === '*') p++;
      break;
    }
  }
  return p === plen && s === slen;
}

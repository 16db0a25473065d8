/**
 * JSON Pointers (RFC 6901) for JSON Patch paths: `~` and `/` inside a key are escaped as `~0` and `~1`.
 */

/**
 * Escapes one reference token: `~` becomes `~0`, then `/` becomes `~1`.
 *
 * # Guarantees
 * - The order is the RFC's: `~` first, so a key `~1` becomes `~01`, never `/`.
 */
export function escapePointerToken(token: string): string {
  return token.includes('~') || token.includes('/') ? token.replace(/~/g, '~0').replace(/\//g, '~1') : token;
}

/**
 * The JSON Pointer of a path of keys and array indexes: `['metadata', 'labels', 'a/b']` is `/metadata/labels/a~1b`.
 *
 * # Guarantees
 * - The empty path is `''` (the whole document), as RFC 6901 defines it.
 */
export function jsonPointer(path: readonly (string | number)[]): string {
  let pointer = '';
  for (const token of path) pointer += `/${typeof token === 'number' ? String(token) : escapePointerToken(token)}`;
  return pointer;
}

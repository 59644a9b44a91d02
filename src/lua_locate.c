/* lua_locate.c — positions inside spec and op files. Lua keeps no columns for
 * table fields, so a field is found by its key (`launch =`) and a string value
 * by its literal; offsets within the literal then name the exact column. Also
 * turns the dirigo block of a .cu file into a chunk with the file's layout. */
#include "lua_int.h"
#include <ctype.h>
#include <string.h>

static bool word_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

size_t dgl_find_key(const char *text, size_t from, const char *key)
{
  size_t kl = strlen(key);
  for (const char *p = strstr(text + from, key); p; p = strstr(p + 1, key)) {
    if (p > text && (word_char(p[-1]) || p[-1] == '.' || p[-1] == '"' || p[-1] == '\'')) continue;
    const char *q = p + kl;
    if (word_char(*q)) continue;
    while (*q == ' ' || *q == '\t') q++;
    if (*q == '=' && q[1] != '=') return (size_t)(p - text);
  }
  return SIZE_MAX;
}

size_t dgl_find_string(const char *text, size_t from, const char *s)
{
  size_t sl = strlen(s);
  for (const char *p = strstr(text + from, s); p; p = strstr(p + 1, s)) {
    if (p == text) continue;
    char q = p[-1];
    if ((q == '"' || q == '\'') && p[sl] == q) return (size_t)(p - text);
  }
  return SIZE_MAX;
}

char *dgl_cu_block_chunk(const char *text, size_t len, const char **err, size_t *err_off)
{
  /* the block must come first: only blanks and // or other comments before it */
  const char *late;
  const char *open = dg_spec_block(text, &late);
  if (!open && late) {
    *err = "the /* dirigo: … */ block must come first in the file (only comments before it)";
    *err_off = (size_t)(late - text);
    return NULL;
  }
  if (!open) {
    *err = "no /* dirigo: … */ block in this file";
    *err_off = 0;
    return NULL;
  }
  const char *body = strstr(open, "dirigo:") + 7;
  const char *close = strstr(body, "*/");
  if (!close) {
    *err = "the /* dirigo: block is not closed";
    *err_off = (size_t)(open - text);
    return NULL;
  }
  static const char head[] = "return _P{";
  if ((size_t)(body - open) < sizeof head - 1) {
    *err = "write the block as /* dirigo: … */";
    *err_off = (size_t)(open - text);
    return NULL;
  }
  /* the .lua's form pasted into the block: Lua would only say "unexpected symbol" */
  const char *w = body;
  while (w < close && (*w == ' ' || *w == '\t' || *w == '\n' || *w == '\r')) w++;
  if (close - w >= 6 && !memcmp(w, "return", 6) && (close - w == 6 || !(isalnum((unsigned char)w[6]) || w[6] == '_'))) {
    *err = "the /* dirigo: … */ block holds the fields only (op = …, sizes = …, launch = …), "
           "not 'return problem { … }'";
    *err_off = (size_t)(w - text);
    return NULL;
  }
  char *c = dg_malloc(len + 1);
  for (size_t i = 0; i < len; i++) c[i] = text[i] == '\n' ? '\n' : ' ';
  c[len] = 0;
  size_t o = (size_t)(open - text), b = (size_t)(body - text), e = (size_t)(close - text);
  memcpy(c + o, head, sizeof head - 1);
  memcpy(c + b, text + b, e - b);
  c[e] = '}';
  return c;
}

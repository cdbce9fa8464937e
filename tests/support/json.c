/* Minimal JSON reader for the test-vector files: enough for the shapes in
 * tests/vectors (UTF-8 passed through; \uXXXX escapes decoded to UTF-8). */
#include <stdlib.h>

#include "testutil.h"

struct json {
  enum json_type type;
  double num;
  char *str;      /* JSON_STR */
  size_t n, cap;  /* JSON_ARR / JSON_OBJ */
  json **items;
  char **keys;    /* JSON_OBJ */
};

typedef struct { const char *p; } cursor;

static void skip_ws(cursor *c) {
  while (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t') c->p++;
}

static json *node(enum json_type t) {
  json *j = calloc(1, sizeof *j);
  if (!j) { fprintf(stderr, "out of memory\n"); exit(2); }
  j->type = t;
  return j;
}

static void push(json *j, char *key, json *v) {
  if (j->n == j->cap) {
    j->cap = j->cap ? 2 * j->cap : 8;
    j->items = realloc(j->items, j->cap * sizeof *j->items);
    j->keys = realloc(j->keys, j->cap * sizeof *j->keys);
    if (!j->items || !j->keys) { fprintf(stderr, "out of memory\n"); exit(2); }
  }
  j->items[j->n] = v;
  j->keys[j->n] = key;
  j->n++;
}

static void put_utf8(char **o, unsigned cp) {
  char *q = *o;
  if (cp < 0x80) *q++ = (char)cp;
  else if (cp < 0x800) { *q++ = (char)(0xc0 | (cp >> 6)); *q++ = (char)(0x80 | (cp & 0x3f)); }
  else { *q++ = (char)(0xe0 | (cp >> 12)); *q++ = (char)(0x80 | ((cp >> 6) & 0x3f)); *q++ = (char)(0x80 | (cp & 0x3f)); }
  *o = q;
}

static char *parse_string(cursor *c) {
  if (*c->p != '"') return NULL;
  c->p++;
  const char *start = c->p;
  while (*c->p && *c->p != '"') c->p += (*c->p == '\\' && c->p[1]) ? 2 : 1;
  if (*c->p != '"') return NULL;
  char *out = malloc((size_t)(c->p - start) * 3 + 1), *o = out;
  if (!out) return NULL;
  for (const char *s = start; s < c->p; s++) {
    if (*s != '\\') { *o++ = *s; continue; }
    s++;
    switch (*s) {
      case 'n': *o++ = '\n'; break;
      case 't': *o++ = '\t'; break;
      case 'r': *o++ = '\r'; break;
      case 'b': *o++ = '\b'; break;
      case 'f': *o++ = '\f'; break;
      case 'u': {
        unsigned cp = 0;
        for (int i = 1; i <= 4 && s[i]; i++) {
          char h = s[i];
          cp = cp * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
        }
        put_utf8(&o, cp);
        s += 4;
        break;
      }
      default: *o++ = *s;
    }
  }
  *o = 0;
  c->p++;
  return out;
}

static json *parse_value(cursor *c, int depth);

static json *parse_container(cursor *c, int depth, int is_obj) {
  json *j = node(is_obj ? JSON_OBJ : JSON_ARR);
  c->p++;
  skip_ws(c);
  if (*c->p == (is_obj ? '}' : ']')) { c->p++; return j; }
  for (;;) {
    char *key = NULL;
    skip_ws(c);
    if (is_obj) {
      key = parse_string(c);
      skip_ws(c);
      if (!key || *c->p != ':') { free(key); json_free(j); return NULL; }
      c->p++;
    }
    json *v = parse_value(c, depth + 1);
    if (!v) { free(key); json_free(j); return NULL; }
    push(j, key, v);
    skip_ws(c);
    if (*c->p == ',') { c->p++; continue; }
    if (*c->p == (is_obj ? '}' : ']')) { c->p++; return j; }
    json_free(j);
    return NULL;
  }
}

static json *parse_value(cursor *c, int depth) {
  if (depth > 64) return NULL;
  skip_ws(c);
  switch (*c->p) {
    case '{': return parse_container(c, depth, 1);
    case '[': return parse_container(c, depth, 0);
    case '"': {
      char *s = parse_string(c);
      if (!s) return NULL;
      json *j = node(JSON_STR);
      j->str = s;
      return j;
    }
    case 't': if (!strncmp(c->p, "true", 4)) { c->p += 4; json *j = node(JSON_BOOL); j->num = 1; return j; } return NULL;
    case 'f': if (!strncmp(c->p, "false", 5)) { c->p += 5; return node(JSON_BOOL); } return NULL;
    case 'n': if (!strncmp(c->p, "null", 4)) { c->p += 4; return node(JSON_NULL); } return NULL;
    default: {
      char *end;
      double d = strtod(c->p, &end);
      if (end == c->p) return NULL;
      c->p = end;
      json *j = node(JSON_NUM);
      j->num = d;
      return j;
    }
  }
}

json *json_parse(const char *text) {
  cursor c = {text};
  json *j = parse_value(&c, 0);
  skip_ws(&c);
  if (j && *c.p) { json_free(j); return NULL; }
  return j;
}

json *json_load(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  if (!text || fread(text, 1, (size_t)size, f) != (size_t)size) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
  text[size] = 0;
  fclose(f);
  json *j = json_parse(text);
  free(text);
  if (!j) { fprintf(stderr, "%s: not valid JSON\n", path); exit(2); }
  return j;
}

void json_free(json *j) {
  if (!j) return;
  for (size_t i = 0; i < j->n; i++) { json_free(j->items[i]); free(j->keys[i]); }
  free(j->items);
  free(j->keys);
  free(j->str);
  free(j);
}

enum json_type json_type_of(const json *j) { return j ? j->type : JSON_NULL; }
size_t json_len(const json *j) { return j && (j->type == JSON_ARR || j->type == JSON_OBJ) ? j->n : 0; }
json *json_at(const json *j, size_t i) { return j && i < j->n ? j->items[i] : NULL; }
const char *json_key_at(const json *j, size_t i) { return j && j->type == JSON_OBJ && i < j->n ? j->keys[i] : NULL; }
json *json_get(const json *obj, const char *key) {
  if (!obj || obj->type != JSON_OBJ) return NULL;
  for (size_t i = 0; i < obj->n; i++)
    if (!strcmp(obj->keys[i], key)) return obj->items[i];
  return NULL;
}
const char *json_str(const json *j) { return j && j->type == JSON_STR ? j->str : NULL; }
double json_num(const json *j) { return j && (j->type == JSON_NUM || j->type == JSON_BOOL) ? j->num : 0; }

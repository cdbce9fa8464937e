/* gostx tunnel --status --json: the status file's lines as one JSON object
 * (docs/TUNNEL.md, "Counters"). Each "KEY VALUE..." line is a member:
 * one decimal number a number, several a list of numbers, anything else
 * the text of the rest; the gateway's "peer NAME ADDRESS KEY VALUE..."
 * lines are the objects of "peers", their values numbers where decimal (a
 * remote user's "id", last, the text of the rest); its "peers N" line (the
 * count of its [peer] sections) is "peer_count", so that no name comes
 * twice in the object (RFC 8259 4: parsers keep either, or refuse). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "tunnel.h"

static int decimal(const char *s) {
  size_t n = strspn(s, "0123456789");
  return n && n <= 20 && !s[n];
}

static void json_text(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c < 0x20) fprintf(out, "\\u%04x", c);
    else fputc(c, out);
  }
  fputc('"', out);
}

static void json_value(FILE *out, const char *s) {
  if (decimal(s)) fputs(s, out);
  else json_text(out, s);
}

/* Splits s at spaces in place: up to cap words into w, their count. */
static size_t words(char *s, char **w, size_t cap) {
  size_t n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(s, " ", &save); tok && n < cap; tok = strtok_r(NULL, " ", &save))
    w[n++] = tok;
  return n;
}

static void peer_object(FILE *out, char **w, size_t n) {
  fputs("{\"name\": ", out);
  json_text(out, w[1]);
  fputs(", \"address\": ", out);
  json_text(out, n > 2 ? w[2] : "");
  for (size_t i = 3; i + 1 < n; i += 2) {
    fputs(", ", out);
    json_text(out, w[i]);
    fputs(": ", out);
    if (!strcmp(w[i], "id")) { /* a remote user's ID, last: the rest of the line (a DN's spaces) */
      for (size_t j = i + 1; j + 1 < n; j++) w[j][strlen(w[j])] = ' ';
      json_text(out, w[i + 1]);
      break;
    }
    json_value(out, w[i + 1]);
  }
  fputc('}', out);
}

int tunnel_status_json(FILE *in, FILE *out) {
  char *line = NULL, *w[TUNNEL_MAX_THREADS + 64]; /* a per-worker line's words fit */
  size_t cap = 0, members = 0, peers = 0;
  ssize_t len;
  fputc('{', out);
  /* the members in order, then the peers' list (lines kept apart: two
   * passes over the file, which is small) */
  for (int pass = 0; pass < 2; pass++) {
    rewind(in);
    while ((len = getline(&line, &cap, in)) > 0) {
      if (line[len - 1] == '\n') line[len - 1] = 0;
      size_t n = words(line, w, sizeof w / sizeof *w);
      if (!n) continue;
      const int peer = !strcmp(w[0], "peer") && n >= 2;
      if (pass == 1 && peer) {
        fputs(peers++ ? ",\n  " : ",\n\"peers\": [\n  ", out);
        peer_object(out, w, n);
      }
      if (pass == 1 || peer) continue;
      fprintf(out, "%s\n", members++ ? "," : "");
      json_text(out, strcmp(w[0], "peers") ? w[0] : "peer_count");
      fputs(": ", out);
      int all_decimal = n > 1;
      for (size_t i = 1; i < n; i++) all_decimal &= decimal(w[i]);
      if (n == 2 && all_decimal) {
        fputs(w[1], out);
      } else if (all_decimal) {
        fputc('[', out);
        for (size_t i = 1; i < n; i++) fprintf(out, "%s%s", i > 1 ? ", " : "", w[i]);
        fputc(']', out);
      } else { /* the text after the key as it was (strtok cut it: joined again) */
        for (size_t i = 1; i + 1 < n; i++) w[i][strlen(w[i])] = ' ';
        json_text(out, n > 1 ? w[1] : "");
      }
    }
    if (pass == 1 && peers) fputs("\n]", out);
  }
  fputs("\n}\n", out);
  free(line);
  return ferror(in) ? -1 : 0;
}

/* gostx info: version, CPU features and the implementation the dispatcher
 * chose for each primitive. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

int cmd_info(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf(
          "Usage: gostx info\n"
          "\n"
          "Prints the library version, the CPU features gostx detected, and the\n"
          "implementation chosen for each primitive. GOSTX_IMPL=name in the\n"
          "environment forces an implementation (e.g. GOSTX_IMPL=portable); a\n"
          "value it cannot honour (an unknown name, a level this CPU lacks) is\n"
          "named on the GOSTX_IMPL line, with what runs instead.\n");
      return CLI_EXIT_OK;
    }
    return cli_usage("info: unexpected argument '%s'", argv[i]);
  }
  printf("gostx %s\n", gostx_version());
  const char *features = gostx_cpu_features();
  printf("cpu features: %s\n", features && *features ? features : "(none)");
  printf("levels: %s\n", gostx_levels());
  const char *forced = getenv("GOSTX_IMPL");
  const char *value, *note = cli_impl_note(&value);
  if (note) printf("GOSTX_IMPL: %s (%s)\n", value, note);
  else if (forced) printf("GOSTX_IMPL: %s\n", forced);
  else printf("GOSTX_IMPL: (not set)\n");
  for (int p = 1; p < GOSTX_ALG_END; p++) {
    const char *name = gostx_alg_name((gostx_alg)p);
    const char *impl = gostx_impl((gostx_alg)p);
    printf("%-11s %s\n", name ? name : "?", impl ? impl : "?");
  }
  return CLI_EXIT_OK;
}

/* The private scratch directory the in-process CLI harnesses (fuzz_cli,
 * fuzz_cms_cli) run the command in: made and entered once, emptied after
 * each run (but for the file named keep, if any), removed at exit. */
#ifndef GOSTX_FUZZ_SCRATCH_H
#define GOSTX_FUZZ_SCRATCH_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch[64];
static const char *scratch_keep = "";

static void empty_scratch(void) {
  DIR *d = opendir(".");
  struct dirent *e;
  if (!d) abort();
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, scratch_keep)) unlink(e->d_name);
  closedir(d);
}

static void scratch_cleanup(void) {
  scratch_keep = "";
  empty_scratch();
  if (chdir("/") == 0) rmdir(scratch);
}

/* /tmp/gostx-fuzz-NAME-XXXXXX made and entered; stdout to /dev/null. */
static void scratch_enter(const char *name) {
  snprintf(scratch, sizeof scratch, "/tmp/gostx-fuzz-%s-XXXXXX", name);
  if (!mkdtemp(scratch) || chdir(scratch) != 0) abort();
  atexit(scratch_cleanup);
  if (!freopen("/dev/null", "w", stdout)) abort();
}

#endif

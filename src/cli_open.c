/* cli_open.c — `dirigo [PROBLEM|FILE.cu|DIR]`: the workbench. Also the
 * headless mode the tests drive:
 *   dirigo --headless WxH --keys FILE --dump DIR [--theme NAME] [--mono] [PATH]
 * which runs the same views on an in-memory screen, reads keys from FILE and
 * writes DIR/NNN.txt and DIR/NNN.style dumps (see tui_headless.c). */
#include "cli.h"
#include "tui.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>

static const char *datadir(void)
{
  const char *d = getenv("DIRIGO_DATADIR");
  return d && *d ? d : DG_DATADIR;
}

static int usage(const char *why)
{
  fprintf(stderr, "dirigo: %s\nusage: dirigo [--theme NAME] [--mono] [PROBLEM|FILE.cu|DIR]\n"
                  "       dirigo --headless WxH --keys FILE [--dump DIR] [--theme NAME] [PATH]\n", why);
  return DG_EXIT_USAGE;
}

int cli_open(int argc, char **argv)
{
  tui_options o = { .datadir = datadir() };
  const char *headless = NULL, *keys = NULL, *dump = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool more = i + 1 < argc;
    if (!strcmp(a, "--headless") && more) headless = argv[++i];
    else if (!strcmp(a, "--keys") && more) keys = argv[++i];
    else if (!strcmp(a, "--dump") && more) dump = argv[++i];
    else if (!strcmp(a, "--theme") && more) o.theme = argv[++i];
    else if (!strcmp(a, "--mono")) o.mono = true;
    else if (a[0] == '-' && a[1]) {
      char *m = dg_printf("unknown option or missing value: %s", a);
      int r = usage(m);
      free(m);
      return r;
    } else if (o.path) return usage("only one file or directory to open");
    else o.path = a;
  }
  tui_backend *b;
  char *script = NULL;
  if (headless) {
    int w, h;
    char x;
    if (sscanf(headless, "%d%c%d", &w, &x, &h) != 3 || x != 'x' || w < 10 || h < 5 || w > 1000 || h > 1000)
      return usage("--headless wants WxH, e.g. 100x30 (at least 10x5)");
    if (!keys) return usage("--headless needs --keys FILE");
    script = dg_read_file(keys, NULL);
    if (!script) {
      fprintf(stderr, "dirigo: %s: %s\n", keys, strerror(errno));
      return DG_EXIT_USAGE;
    }
    b = tui_headless_new(w, h);
    char *err = NULL;
    if (!tui_headless_script(b, keys, script, &err)) {
      fprintf(stderr, "%s\n", err);
      free(err);
      free(script);
      b->ops->free(b);
      return DG_EXIT_USAGE;
    }
    free(script);
    if (dump && mkdir(dump, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "dirigo: --dump %s: %s\n", dump, strerror(errno));
      b->ops->free(b);
      return DG_EXIT_USAGE;
    }
    tui_headless_dump_to(b, dump);
  } else {
    const char *err = NULL;
    b = tui_curses_new(o.mono, &err);
    if (!b) {
      fprintf(stderr, "dirigo: %s\n", err);
      return DG_EXIT_USAGE;
    }
  }
  dg_buf msgs = {0};
  tui_app *app = tui_app_new(b, &o, &msgs);
  int rc = DG_EXIT_OK;
  if (o.path && !tui_app_open(app, o.path)) {
    dg_buf_printf(&msgs, "dirigo: %s\n", app->message);
    rc = DG_EXIT_USAGE;
  } else {
    tui_lua_init(app);                        /* the user's init.lua and its hooks */
    if (msgs.n && !app->message) {          /* e.g. bad theme lines: show the first */
      char *first = dg_strndup(msgs.s, strcspn(msgs.s, "\n"));
      tui_app_message(app, true, "%s", first);
      free(first);
    }
    if (tui_app_run(app, headless && dump, &msgs) != 0) rc = DG_EXIT_USAGE;   /* a dump not written */
  }
  tui_app_free(app);                         /* restores the terminal */
  if (msgs.n) fputs(msgs.s, stderr);
  dg_buf_free(&msgs);
  return rc;
}

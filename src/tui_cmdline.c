/* tui_cmdline.c — the one-line prompt (':' commands, '/' search, picker
 * goto) and the ':' command table. Commands are data: name, usage, help,
 * handler. ':lua' evaluates in the workbench's Lua state (tui_lua.c). */
#include "tui.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <stdint.h>

void tui_app_prompt(tui_app *a, const char *prefix, const char *init,
                    int (*done)(tui_app *a, const char *text))
{
  tui_prompt *p = &a->prompt;
  p->active = true;
  snprintf(p->prefix, sizeof p->prefix, "%s", prefix);
  p->text.n = 0;
  dg_buf_puts(&p->text, init);
  p->done = done;
  free(a->message);
  a->message = NULL;
}

static void drop_last_char(dg_buf *b)
{
  while (b->n > 0) {
    unsigned char c = (unsigned char)b->s[--b->n];
    if ((c & 0xc0) != 0x80) break;              /* stop at a UTF-8 lead byte */
  }
  b->s[b->n] = '\0';
}

int tui_prompt_key(tui_app *a, int key)
{
  tui_prompt *p = &a->prompt;
  if (key == TUI_KEY_ESC || key == TUI_CTRL('c') || key == TUI_CTRL('g')) {
    p->active = false;
    return TUI_HANDLED | TUI_REDRAW;
  }
  if (key == TUI_KEY_BACKSPACE || key == 127 || key == TUI_CTRL('h')) {
    if (p->text.n == 0) p->active = false;      /* backspace on empty: cancel */
    else drop_last_char(&p->text);
    return TUI_HANDLED | TUI_REDRAW;
  }
  if (key == TUI_CTRL('u')) {
    p->text.n = 0;
    dg_buf_puts(&p->text, "");
    return TUI_HANDLED | TUI_REDRAW;
  }
  if (key == TUI_KEY_ENTER || key == '\r') {
    p->active = false;
    char *t = dg_strdup(p->text.s ? p->text.s : "");
    int r = p->done ? p->done(a, t) : TUI_HANDLED;
    free(t);
    return r | TUI_HANDLED | TUI_REDRAW;
  }
  if (key >= 0x20 && key < TUI_KEY_SPECIAL && key != 0x7f) {
    char u[4];
    dg_buf_put(&p->text, u, (size_t)tui_utf8_put(u, (uint32_t)key));
    return TUI_HANDLED | TUI_REDRAW;
  }
  return TUI_HANDLED;                           /* other keys are ignored while typing */
}

/* ---- ':' commands ----------------------------------------------------------- */

typedef struct {
  const char *name;
  const char *usage;
  const char *help;
  int (*run)(tui_app *a, const char *arg);
} tui_cmd;

static int cmd_quit(tui_app *a, const char *arg)
{
  a->quit = true;
  return TUI_HANDLED | TUI_QUIT;
}

static int cmd_help(tui_app *a, const char *arg) { return tui_act_help(a, NULL, 0); }

static int cmd_theme(tui_app *a, const char *arg)
{
  if (!*arg) {
    tui_app_message(a, true, ":theme needs a name (default, light, mono, or a path)");
    return TUI_HANDLED | TUI_REDRAW;
  }
  dg_buf msgs = {0};
  bool ok = tui_app_theme(a, arg, &msgs);
  if (msgs.n) {
    char *nl = strchr(msgs.s, '\n');
    if (nl) *nl = '\0';
    tui_app_message(a, true, "%s", msgs.s);
  } else if (ok) {
    tui_app_message(a, false, "theme %s", arg);
  }
  dg_buf_free(&msgs);
  return TUI_HANDLED | TUI_REDRAW;
}

static int cmd_kernel(tui_app *a, const char *arg)
{
  if (!*arg) return tui_src_kernels(a, NULL, 0);
  for (size_t i = 0; a->doc && i < a->doc->kernels.n; i++)
    if (!strcmp(a->doc->kernels.v[i].name, arg)) {
      tui_app_focus(a, TUI_PANE_SOURCE);
      tui_source_goto(a, a->doc->kernels.v[i].line);
      return TUI_HANDLED | TUI_REDRAW;
    }
  tui_app_message(a, true, "no __global__ kernel named %s", arg);
  return TUI_HANDLED | TUI_REDRAW;
}

static int cmd_goto(tui_app *a, const char *arg)
{
  char *end;
  long l = strtol(arg, &end, 10);
  if (end == arg || *end || l < 1) {
    tui_app_message(a, true, ":goto needs a line number");
    return TUI_HANDLED | TUI_REDRAW;
  }
  tui_source_goto(a, l > UINT32_MAX ? UINT32_MAX : (uint32_t)l);
  uint32_t at = tui_source_cursor(a);   /* clamped to the last line */
  if ((long)at < l) tui_app_message(a, true, "line %ld is past the end of the file: at its last line, %u", l, at);
  return TUI_HANDLED | TUI_REDRAW;
}

static int cmd_lua(tui_app *a, const char *arg) { return tui_lua_run(a, arg); }

static int cmd_check(tui_app *a, const char *arg) { return tui_act_check(a, NULL, 0); }
static int cmd_fuzz(tui_app *a, const char *arg) { return tui_fuzz_run(a, arg); }
static int cmd_auto(tui_app *a, const char *arg) { return tui_check_auto(a); }
static int cmd_replay(tui_app *a, const char *arg) { return tui_check_replay(a); }
static int cmd_cancel(tui_app *a, const char *arg) { return tui_act_cancel(a, NULL, 0); }

static int cmd_reload(tui_app *a, const char *arg)
{
  if (a->job) {
    tui_app_message(a, true, ":reload: wait for the running job, or cancel it (x)");
    return TUI_HANDLED | TUI_REDRAW;
  }
  if (!a->path || a->gallery) {
    tui_app_message(a, true, ":reload: no file is open");
    return TUI_HANDLED | TUI_REDRAW;
  }
  char *path = dg_strdup(a->path);
  if (tui_app_open(a, path)) tui_app_message(a, false, "reloaded %s", path);
  free(path);
  return TUI_HANDLED | TUI_REDRAW;
}

static const tui_cmd cmds[] = {
  { "quit", "", "leave dirigo", cmd_quit },
  { "q", "", "leave dirigo", cmd_quit },
  { "help", "", "this help: the keys and the commands", cmd_help },
  { "theme", "NAME", "switch colour theme (default, light, mono, or a file)", cmd_theme },
  { "kernel", "[NAME]", "jump to a __global__ kernel (no name: the list)", cmd_kernel },
  { "goto", "LINE", "jump to a source line (also :LINE)", cmd_goto },
  { "check", "", "symbolic check of the selected element", cmd_check },
  { "fuzz", "[STRATEGY]", "fuzz campaign on the emulator (heat map in the picker)", cmd_fuzz },
  { "auto", "", "check --auto: a few chosen elements, up to the first finding", cmd_auto },
  { "replay", "", "replay the witness of the selected element's last check", cmd_replay },
  { "cancel", "", "cancel the running check / fuzz / replay", cmd_cancel },
  { "reload", "", "open the spec and kernel again (after an edit on disk)", cmd_reload },
  { "lua", "CODE", "evaluate Lua: the dirigo module, workbench.selected() / .message() / .line()", cmd_lua },
};

bool tui_cmd_at(size_t i, const char **name, const char **usage, const char **help)
{
  if (i >= sizeof cmds / sizeof *cmds) return false;
  *name = cmds[i].name, *usage = cmds[i].usage, *help = cmds[i].help;
  return true;
}

int tui_cmd_run(tui_app *a, const char *line)
{
  while (isspace((unsigned char)*line)) line++;
  if (!*line) return TUI_HANDLED | TUI_REDRAW;
  if (isdigit((unsigned char)*line)) return cmd_goto(a, line);
  size_t n = 0;
  while (line[n] && !isspace((unsigned char)line[n])) n++;
  const char *arg = line + n;
  while (isspace((unsigned char)*arg)) arg++;
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
    if (strlen(cmds[i].name) == n && !strncmp(cmds[i].name, line, n)) {
      if (!*cmds[i].usage && *arg) {   /* ":check now" must not run as ":check" */
        tui_app_message(a, true, ":%s takes no argument (got '%s')", cmds[i].name, arg);
        return TUI_HANDLED | TUI_REDRAW;
      }
      return cmds[i].run(a, arg);
    }
  tui_app_message(a, true, "unknown command :%.*s (:help lists the keys and the commands)", (int)n, line);
  return TUI_HANDLED | TUI_REDRAW;
}

/* theme.c — tests for theme parsing, colours and the longest-prefix lookup. */
#include "theme.h"
#include "../tap.h"

static int parse(dg_theme *t, dg_srcmgr *sm, dg_diags *d, const char *text)
{
  uint32_t f = dg_srcmgr_add(sm, "t.theme", dg_strdup(text), strlen(text));
  return dg_theme_parse(t, sm, f, d);
}

int main(void)
{
  is_int(dg_color_parse("red", 3), 1, "colour name");
  is_int(dg_color_parse("bright-blue", 11), 12, "bright colour name");
  is_int(dg_color_parse("231", 3), 231, "palette number");
  is_int(dg_color_parse("256", 3), DG_COLOR_UNSET, "256 is not a colour");
  is_int(dg_color_parse("#ffffff", 7), 231, "#ffffff is cube white");
  is_int(dg_color_parse("#000000", 7), 16, "#000000 is cube black");
  is_int(dg_color_parse("#ff0000", 7), 196, "#ff0000 is cube red");
  is_int(dg_color_parse("#808080", 7), 244, "#808080 is on the grey ramp");
  is_int(dg_color_parse("#12345", 6), DG_COLOR_UNSET, "short hex is refused");
  is_int(dg_color_parse("#gg0000", 7), DG_COLOR_UNSET, "bad hex digit is refused");
  is_int(dg_color_parse("default", 7), DG_COLOR_DEFAULT, "default colour");
  is_int(dg_color_to8(196), 1, "red maps to basic red");
  is_int(dg_color_to8(21), 4, "blue maps to basic blue");

  dg_theme t;
  dg_theme_init(&t);
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  dg_diags d = {0};
  int bad = parse(&t, &sm, &d,
                  "# a comment\n"
                  "keyword = fg=#c678dd,bold   # trailing comment\n"
                  "ui.status = fg=231,bg=24\n"
                  "function = blue\n"
                  "function.builtin = fg=cyan,italic,underline\n"
                  "broken = fg=#zzzzzz\n"
                  "   \n"
                  "nosuch = sparkly\n"
                  "= red\n"
                  "missing_eq red\n"
                  "comment = dim,reverse\n");
  is_int(bad, 4, "four bad lines");
  is_int(d.v.n, 4, "one diagnostic per bad line");
  dg_buf b = {0};
  if (d.v.n >= 4) {
    dg_diag_format(&b, &sm, &d.v.v[0]);
    is_str(b.s, "t.theme:6:10: error: 'fg=#zzzzzz': not a colour (want #rrggbb, 0-255 or a name)",
           "bad colour names file:line:col");
    b.n = 0;
    dg_diag_format(&b, &sm, &d.v.v[1]);
    has_str(b.s, "t.theme:8:10: error: 'sparkly'", "unknown word names its column");
    b.n = 0;
    dg_diag_format(&b, &sm, &d.v.v[2]);
    has_str(b.s, "t.theme:9:1: error: expected a style name", "missing name");
    b.n = 0;
    dg_diag_format(&b, &sm, &d.v.v[3]);
    has_str(b.s, "t.theme:10:12: error: expected '='", "missing '='");
  }
  dg_buf_free(&b);

  dg_style s;
  ok(dg_theme_lookup(&t, "keyword", &s) && s.fg == dg_color_parse("#c678dd", 7)
     && s.attr == DG_ATTR_BOLD && s.bg == DG_COLOR_UNSET, "keyword style");
  ok(dg_theme_lookup(&t, "ui.status", &s) && s.fg == 231 && s.bg == 24, "ui.status style");
  ok(dg_theme_lookup(&t, "function.builtin", &s) && s.fg == 6
     && s.attr == (DG_ATTR_ITALIC | DG_ATTR_UNDERLINE), "exact dotted name");
  ok(dg_theme_lookup(&t, "function.builtin.cuda", &s) && s.fg == 6, "longest prefix wins");
  ok(dg_theme_lookup(&t, "function.call", &s) && s.fg == 4, "falls back to function");
  ok(!dg_theme_lookup(&t, "functional", &s), "prefix means a dotted prefix");
  ok(!dg_theme_lookup(&t, "broken", &s), "a bad line sets nothing");
  ok(dg_theme_lookup(&t, "comment", &s) && s.attr == (DG_ATTR_DIM | DG_ATTR_REVERSE),
     "lines after bad ones still load");

  dg_theme_set(&t, "keyword", (dg_style){ 1, 2, 0 });
  ok(dg_theme_lookup(&t, "keyword", &s) && s.fg == 1 && s.bg == 2, "a later rule replaces");
  dg_style m = dg_style_merge((dg_style){ 7, 0, DG_ATTR_BOLD }, (dg_style){ DG_COLOR_UNSET, 4, DG_ATTR_DIM });
  ok(m.fg == 7 && m.bg == 4 && m.attr == (DG_ATTR_BOLD | DG_ATTR_DIM), "merge inherits unset colours");

  is_int(dg_theme_load(&t, "/nonexistent/x.theme", &sm, &d), -1, "missing file fails");
  has_str(d.v.v[d.v.n - 1].msg, "cannot read theme", "and says so");

  dg_diags_free(&d);
  dg_srcmgr_free(&sm);
  dg_theme_free(&t);
  return tap_done();
}

/* tui_keys.c — THE key table. Dispatch (tui_app.c), the status bar and the
 * '?' help screen (tui_help.c) all read these rows, so a key documented is a
 * key bound. Order matters: rows are shown in this order. */
#include "tui.h"

#define CTX_NAME(e, n) n,
const char *const tui_context_names[] = { TUI_CONTEXTS(CTX_NAME) };
#undef CTX_NAME

#define K(ctx, key, name, bar, help, fn) { TUI_CTX_##ctx, key, name, bar, help, fn }

const tui_binding tui_bindings[] = {
  K(ALWAYS, TUI_CTRL('c'), "quit", NULL, "leave dirigo at once", tui_act_quit),
  K(ALWAYS, TUI_CTRL('l'), "redraw", NULL, "redraw the screen", tui_act_redraw),
  K(ALWAYS, TUI_KEY_F1, "help", NULL, "this help", tui_act_help),

  K(GLOBAL, 'q', "quit", "quit", "leave dirigo", tui_act_quit),
  K(GLOBAL, '?', "help", "help", "this help: every key, from the key table", tui_act_help),
  K(GLOBAL, TUI_KEY_TAB, "next-pane", "pane", "focus the next pane (source, picker, result)", tui_act_next_pane),
  K(GLOBAL, TUI_KEY_BTAB, "prev-pane", NULL, "focus the previous pane", tui_act_prev_pane),
  K(GLOBAL, ':', "command", NULL, "command line (:help, :theme NAME, :kernel NAME, :goto LINE, :q)", tui_act_command),
  K(GLOBAL, 'c', "check", "check", "symbolic check of the selected element", tui_act_check),
  K(GLOBAL, 'f', "fuzz", "fuzz", "fuzz campaign on the emulator; heat map in the picker", tui_act_fuzz),
  K(GLOBAL, 'o', "gallery", NULL, "open the samples gallery", tui_act_gallery),

  K(SOURCE, 'j', "down", NULL, "next line", tui_src_down),
  K(SOURCE, TUI_KEY_DOWN, "down", NULL, "next line", tui_src_down),
  K(SOURCE, 'k', "up", NULL, "previous line", tui_src_up),
  K(SOURCE, TUI_KEY_UP, "up", NULL, "previous line", tui_src_up),
  K(SOURCE, TUI_KEY_PGDN, "page-down", NULL, "next page", tui_src_page_down),
  K(SOURCE, ' ', "page-down", NULL, "next page", tui_src_page_down),
  K(SOURCE, TUI_KEY_PGUP, "page-up", NULL, "previous page", tui_src_page_up),
  K(SOURCE, 'g', "top", NULL, "first line", tui_src_top),
  K(SOURCE, TUI_KEY_HOME, "top", NULL, "first line", tui_src_top),
  K(SOURCE, 'G', "bottom", NULL, "last line", tui_src_bottom),
  K(SOURCE, TUI_KEY_END, "bottom", NULL, "last line", tui_src_bottom),
  K(SOURCE, 'h', "scroll-left", NULL, "scroll the text left", tui_src_left),
  K(SOURCE, TUI_KEY_LEFT, "scroll-left", NULL, "scroll the text left", tui_src_left),
  K(SOURCE, 'l', "scroll-right", NULL, "scroll the text right (long lines)", tui_src_right),
  K(SOURCE, TUI_KEY_RIGHT, "scroll-right", NULL, "scroll the text right (long lines)", tui_src_right),
  K(SOURCE, '/', "search", "search", "search forward (a plain string)", tui_src_search),
  K(SOURCE, 'n', "search-next", NULL, "next match", tui_src_next),
  K(SOURCE, 'N', "search-prev", NULL, "previous match", tui_src_prev),
  K(SOURCE, 'K', "kernels", "kernels", "list the __global__ kernels and jump to one", tui_src_kernels),
  K(SOURCE, ']', "next-kernel", NULL, "jump to the next kernel", tui_src_next_kernel),
  K(SOURCE, '[', "prev-kernel", NULL, "jump to the previous kernel", tui_src_prev_kernel),
  K(SOURCE, 'e', "next-diag", NULL, "jump to the next diagnostic", tui_src_diag_next),

  K(PICKER, 'h', "left", NULL, "previous column", tui_pick_left),
  K(PICKER, TUI_KEY_LEFT, "left", NULL, "previous column", tui_pick_left),
  K(PICKER, 'l', "right", NULL, "next column", tui_pick_right),
  K(PICKER, TUI_KEY_RIGHT, "right", NULL, "next column", tui_pick_right),
  K(PICKER, 'k', "up", NULL, "previous row", tui_pick_up),
  K(PICKER, TUI_KEY_UP, "up", NULL, "previous row", tui_pick_up),
  K(PICKER, 'j', "down", NULL, "next row", tui_pick_down),
  K(PICKER, TUI_KEY_DOWN, "down", NULL, "next row", tui_pick_down),
  K(PICKER, TUI_KEY_PGUP, "page-up", NULL, "a page of rows up", tui_pick_page_up),
  K(PICKER, TUI_KEY_PGDN, "page-down", NULL, "a page of rows down", tui_pick_page_down),
  K(PICKER, TUI_KEY_HOME, "home", NULL, "first element of the slice", tui_pick_home),
  K(PICKER, TUI_KEY_END, "end", NULL, "last element of the slice", tui_pick_end),
  K(PICKER, TUI_KEY_ENTER, "check", NULL, "symbolic check of the selected element (as c)", tui_act_check),
  K(PICKER, 'g', "goto", "goto", "jump to an index (i,j,...)", tui_pick_goto),
  K(PICKER, 't', "tensor", "tensor", "next output tensor", tui_pick_tensor),
  K(PICKER, 'd', "dims", NULL, "choose the two dims shown (rows, cols)", tui_pick_dims),
  K(PICKER, '+', "slice-next", NULL, "step the hidden dim forward", tui_pick_slice_next),
  K(PICKER, '-', "slice-prev", NULL, "step the hidden dim back", tui_pick_slice_prev),
  K(PICKER, 's', "slice-dim", NULL, "choose which hidden dim +/- steps", tui_pick_slice_dim),

  K(RESULT, 'j', "down", NULL, "scroll down", tui_res_down),
  K(RESULT, TUI_KEY_DOWN, "down", NULL, "scroll down", tui_res_down),
  K(RESULT, 'k', "up", NULL, "scroll up", tui_res_up),
  K(RESULT, TUI_KEY_UP, "up", NULL, "scroll up", tui_res_up),

  K(GALLERY, 'j', "down", NULL, "next problem", tui_gal_down),
  K(GALLERY, TUI_KEY_DOWN, "down", NULL, "next problem", tui_gal_down),
  K(GALLERY, 'k', "up", NULL, "previous problem", tui_gal_up),
  K(GALLERY, TUI_KEY_UP, "up", NULL, "previous problem", tui_gal_up),
  K(GALLERY, TUI_KEY_ENTER, "open", "open", "open the problem", tui_gal_open),
  K(GALLERY, '/', "filter", "filter", "show only problems whose line contains a string", tui_gal_filter),
  K(GALLERY, 'q', "quit", "quit", "leave dirigo", tui_act_quit),
  K(GALLERY, '?', "help", "help", "this help", tui_act_help),

  K(MENU, 'j', "down", NULL, "next item", tui_menu_down),
  K(MENU, TUI_KEY_DOWN, "down", NULL, "next item", tui_menu_down),
  K(MENU, 'k', "up", NULL, "previous item", tui_menu_up),
  K(MENU, TUI_KEY_UP, "up", NULL, "previous item", tui_menu_up),
  K(MENU, TUI_KEY_ENTER, "pick", "pick", "take the item", tui_menu_pick),
  K(MENU, TUI_KEY_ESC, "close", "close", "close the list", tui_menu_close),
  K(MENU, 'q', "close", NULL, "close the list", tui_menu_close),

  K(HELP, 'j', "down", NULL, "scroll down", tui_help_down),
  K(HELP, TUI_KEY_DOWN, "down", NULL, "scroll down", tui_help_down),
  K(HELP, 'k', "up", NULL, "scroll up", tui_help_up),
  K(HELP, TUI_KEY_UP, "up", NULL, "scroll up", tui_help_up),
  K(HELP, TUI_KEY_PGDN, "page-down", NULL, "a page down", tui_help_page_down),
  K(HELP, ' ', "page-down", NULL, "a page down", tui_help_page_down),
  K(HELP, TUI_KEY_PGUP, "page-up", NULL, "a page up", tui_help_page_up),
  K(HELP, 'G', "bottom", NULL, "the end", tui_help_end),
  K(HELP, TUI_KEY_END, "bottom", NULL, "the end", tui_help_end),
  K(HELP, 'g', "top", NULL, "the start", tui_help_home),
  K(HELP, TUI_KEY_HOME, "top", NULL, "the start", tui_help_home),
  K(HELP, 'q', "close", "close", "close the help", tui_help_close),
  K(HELP, TUI_KEY_ESC, "close", NULL, "close the help", tui_help_close),
  K(HELP, '?', "close", NULL, "close the help", tui_help_close),
};

const size_t tui_nbindings = sizeof tui_bindings / sizeof *tui_bindings;

/* ir_print.c — the IR as readable C-like text: every conversion shown as a
 * cast, every binary operation parenthesised, loop hints and switch cases
 * spelled out. Used by `dirigo parse --ir`, tests and debugging. */
#include "ir.h"
#include <string.h>
#include <math.h>

static const char *const binop_names[DG_BIN__COUNT] = {
  [DG_BIN_NONE] = "?", [DG_BIN_ADD] = "+", [DG_BIN_SUB] = "-", [DG_BIN_MUL] = "*",
  [DG_BIN_DIV] = "/", [DG_BIN_MOD] = "%", [DG_BIN_SHL] = "<<", [DG_BIN_SHR] = ">>",
  [DG_BIN_AND] = "&", [DG_BIN_OR] = "|", [DG_BIN_XOR] = "^", [DG_BIN_EQ] = "==",
  [DG_BIN_NE] = "!=", [DG_BIN_LT] = "<", [DG_BIN_LE] = "<=", [DG_BIN_GT] = ">",
  [DG_BIN_GE] = ">=", [DG_BIN_PTRADD] = "+", [DG_BIN_PTRDIFF] = "-",
};

static const char *const builtin_names[DG_BI__COUNT] = {
  "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
};

const char *ir_binop_name(dg_binop op)
{
  return (unsigned)op < DG_BIN__COUNT ? binop_names[op] : "?";
}

const char *ir_intrin_name(dg_intrin in)
{
  return (unsigned)in < DG_IN__COUNT ? dg_intrins[in].name : "?";
}

const char *ir_type_name(const dg_type *t)
{
  return t && t->name ? t->name : "?";
}

static void print_args(dg_buf *out, dg_expr **args, int n)
{
  dg_buf_putc(out, '(');
  for (int i = 0; i < n; i++) {
    if (i) dg_buf_puts(out, ", ");
    ir_print_expr(out, args[i]);
  }
  dg_buf_putc(out, ')');
}

static void print_int(dg_buf *out, const dg_expr *e)
{
  const dg_type *t = e->type;
  if (t && t->kind == DG_TY_BOOL) { dg_buf_puts(out, e->ival ? "true" : "false"); return; }
  if (t && !dg_type_is_signed(t) && dg_type_is_int(t)) {
    dg_buf_printf(out, "%lluu", (unsigned long long)e->ival);
    if (t->kind == DG_TY_U64) dg_buf_puts(out, "ll");
    return;
  }
  dg_buf_printf(out, "%lld", (long long)e->ival);
  if (t && t->kind == DG_TY_I64) dg_buf_puts(out, "ll");
  else if (t && t->kind != DG_TY_I32) dg_buf_printf(out, "/*%s*/", ir_type_name(t));
}

static void print_float(dg_buf *out, const dg_expr *e)
{
  double v = e->fval;
  const char *suf = e->type && e->type->kind == DG_TY_F64 ? "" : "f";
  if (isnan(v)) { dg_buf_printf(out, "NAN%s", *suf ? "" : "_D"); return; }
  if (isinf(v)) { dg_buf_printf(out, "%sINFINITY%s", v < 0 ? "-" : "", *suf ? "" : "_D"); return; }
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", v);
  if (e->type && e->type->kind != DG_TY_F64) snprintf(buf, sizeof buf, "%.9g", v);
  if (!strpbrk(buf, ".en")) strcat(buf, ".0");
  dg_buf_printf(out, "%s%s", buf, suf);
  if (e->type && (e->type->kind == DG_TY_F16 || e->type->kind == DG_TY_BF16)) dg_buf_printf(out, "/*%s*/", e->type->name);
}

void ir_print_expr(dg_buf *out, const dg_expr *e)
{
  if (!e) { dg_buf_puts(out, "<null>"); return; }
  switch (e->kind) {
  case DG_EX_INT: print_int(out, e); break;
  case DG_EX_FLOAT: print_float(out, e); break;
  case DG_EX_VAR: dg_buf_puts(out, e->var && e->var->name[0] ? e->var->name : "<anon>"); break;
  case DG_EX_BUILTIN:
    if (e->op == DG_BI_WARPSIZE) dg_buf_puts(out, "warpSize");
    else dg_buf_printf(out, "%s.%c", (unsigned)e->op < DG_BI__COUNT ? builtin_names[e->op] : "?", "xyz"[e->dim % 3]);
    break;
  case DG_EX_UNARY:
    dg_buf_puts(out, e->op == DG_UN_NEG ? "-" : e->op == DG_UN_NOT ? "!" : "~");
    ir_print_expr(out, e->a);
    break;
  case DG_EX_BINARY: case DG_EX_LAND: case DG_EX_LOR:
    dg_buf_putc(out, '(');
    ir_print_expr(out, e->a);
    dg_buf_printf(out, " %s ", e->kind == DG_EX_LAND ? "&&" : e->kind == DG_EX_LOR ? "||" : ir_binop_name(e->op));
    ir_print_expr(out, e->b);
    dg_buf_putc(out, ')');
    break;
  case DG_EX_COND:
    dg_buf_putc(out, '(');
    ir_print_expr(out, e->a);
    dg_buf_puts(out, " ? ");
    ir_print_expr(out, e->b);
    dg_buf_puts(out, " : ");
    ir_print_expr(out, e->c);
    dg_buf_putc(out, ')');
    break;
  case DG_EX_ASSIGN:
    ir_print_expr(out, e->a);
    dg_buf_printf(out, " %s= ", e->op == DG_BIN_NONE ? "" : ir_binop_name(e->op));
    ir_print_expr(out, e->b);
    break;
  case DG_EX_INCDEC: {
    const char *op = e->op == DG_BIN_ADD ? "++" : "--";
    if (!e->post) dg_buf_puts(out, op);
    ir_print_expr(out, e->a);
    if (e->post) dg_buf_puts(out, op);
    break;
  }
  case DG_EX_CALL:
    dg_buf_puts(out, e->func ? e->func->name : "?");
    print_args(out, e->args, e->nargs);
    break;
  case DG_EX_INTRIN:
    dg_buf_puts(out, ir_intrin_name(e->op));
    if (e->type && (!strcmp(ir_intrin_name(e->op), "max") || !strcmp(ir_intrin_name(e->op), "min") ||
                    !strcmp(dg_intrins[e->op].sig, "T(T)") || strchr(dg_intrins[e->op].sig, 'T')))
      dg_buf_printf(out, "<%s>", ir_type_name(e->type));
    print_args(out, e->args, e->nargs);
    break;
  case DG_EX_CAST: {
    static const char *const kinds[] = { "", "bitcast", "ptrcast", "ptr2int", "int2ptr" };
    if (e->op == DG_CAST_CONVERT) dg_buf_printf(out, "(%s)", ir_type_name(e->type));
    else dg_buf_printf(out, "%s<%s>", (unsigned)e->op < 5 ? kinds[e->op] : "?", ir_type_name(e->type));
    bool paren = e->op != DG_CAST_CONVERT || (e->a && (e->a->kind == DG_EX_CAST || e->a->kind == DG_EX_UNARY));
    if (paren) dg_buf_putc(out, '(');
    ir_print_expr(out, e->a);
    if (paren) dg_buf_putc(out, ')');
    break;
  }
  case DG_EX_INDEX:
    ir_print_expr(out, e->a);
    dg_buf_putc(out, '[');
    ir_print_expr(out, e->b);
    dg_buf_putc(out, ']');
    break;
  case DG_EX_DEREF: dg_buf_puts(out, "*"); ir_print_expr(out, e->a); break;
  case DG_EX_ADDR: dg_buf_puts(out, "&"); ir_print_expr(out, e->a); break;
  case DG_EX_LANE:
    ir_print_expr(out, e->a);
    dg_buf_printf(out, ".%c", "xyzw"[e->ival & 3]);
    break;
  case DG_EX_VECBUILD:
    dg_buf_printf(out, "%s", ir_type_name(e->type));
    dg_buf_putc(out, '{');
    for (int i = 0; i < e->nargs; i++) {
      if (i) dg_buf_puts(out, ", ");
      ir_print_expr(out, e->args[i]);
    }
    dg_buf_putc(out, '}');
    break;
  case DG_EX_FIELD: {
    const dg_type *st = e->a ? e->a->type : NULL;
    const char *fname = st && st->kind == DG_TY_STRUCT && e->ival >= 0 && e->ival < st->nfields
                      ? st->fields[e->ival].name : "?";
    if (e->a && e->a->kind == DG_EX_DEREF) {      /* p->f */
      dg_exkind ik = e->a->a ? e->a->a->kind : DG_EX_VAR;   /* these print their own parentheses, or need none */
      bool simple = ik == DG_EX_VAR || ik == DG_EX_FIELD || ik == DG_EX_INDEX || ik == DG_EX_BINARY ||
                    ik == DG_EX_COND || ik == DG_EX_CALL || ik == DG_EX_COMMA || ik == DG_EX_LAND || ik == DG_EX_LOR;
      if (!simple) dg_buf_putc(out, '(');
      ir_print_expr(out, e->a->a);
      if (!simple) dg_buf_putc(out, ')');
      dg_buf_printf(out, "->%s", fname);
    } else {
      ir_print_expr(out, e->a);
      dg_buf_printf(out, ".%s", fname);
    }
    break;
  }
  case DG_EX_COMMA:
    dg_buf_putc(out, '(');
    ir_print_expr(out, e->a);
    dg_buf_puts(out, ", ");
    ir_print_expr(out, e->b);
    dg_buf_putc(out, ')');
    break;
  default: dg_buf_puts(out, "<?>"); break;
  }
}

void ir_print_struct(dg_buf *out, const dg_type *t)
{
  if (!t || t->kind != DG_TY_STRUCT) return;
  dg_buf_printf(out, "struct %s {  // %lld bytes, align %lld\n", t->name, (long long)t->size, (long long)t->align);
  for (int i = 0; i < t->nfields; i++) {
    const dg_field *f = &t->fields[i];
    const char *tn = ir_type_name(f->type), *br = f->type->kind == DG_TY_ARRAY ? strchr(tn, '[') : NULL;
    if (br) dg_buf_printf(out, "  %.*s %s%s;  // @%lld\n", (int)(br - tn), tn, f->name, br, (long long)f->offset);
    else dg_buf_printf(out, "  %s %s;  // @%lld\n", tn, f->name, (long long)f->offset);
  }
  dg_buf_puts(out, "};\n");
}

static void indent(dg_buf *out, int n) { for (int i = 0; i < n; i++) dg_buf_puts(out, "  "); }

static void print_decl(dg_buf *out, const dg_stmt *s)
{
  const dg_var *v = s->var;
  dg_buf_printf(out, "%s%s %s", v->by_ref ? "ref " : "", ir_type_name(v->type), v->name);
  if (s->e) { dg_buf_puts(out, " = "); ir_print_expr(out, s->e); }
  if (s->ninits) {
    dg_buf_puts(out, " = {");
    for (int i = 0; i < s->ninits; i++) {
      if (i) dg_buf_puts(out, ", ");
      ir_print_expr(out, s->inits[i]);
    }
    dg_buf_putc(out, '}');
  }
}

static void print_stmt(dg_buf *out, const dg_stmt *s, int d);

static void print_sub(dg_buf *out, const dg_stmt *s, int d)
{
  /* branches and loop bodies always print as braced blocks */
  dg_buf_puts(out, " {\n");
  if (s && s->kind == DG_ST_BLOCK && !s->unroll)
    for (int i = 0; i < s->nbody; i++) print_stmt(out, s->body[i], d + 1);
  else
    print_stmt(out, s, d + 1);
  indent(out, d);
  dg_buf_putc(out, '}');
}

static void print_stmt(dg_buf *out, const dg_stmt *s, int d)
{
  if (!s) return;
  if (s->unroll) {
    indent(out, d);
    if (s->unroll < 0) dg_buf_puts(out, "#pragma unroll\n");
    else dg_buf_printf(out, "#pragma unroll %d\n", s->unroll);
  }
  indent(out, d);
  switch (s->kind) {
  case DG_ST_BLOCK:
    dg_buf_puts(out, "{\n");
    for (int i = 0; i < s->nbody; i++) print_stmt(out, s->body[i], d + 1);
    indent(out, d);
    dg_buf_puts(out, "}\n");
    return;
  case DG_ST_DECL: print_decl(out, s); dg_buf_puts(out, ";\n"); return;
  case DG_ST_EXPR: ir_print_expr(out, s->e); dg_buf_puts(out, ";\n"); return;
  case DG_ST_IF:
    dg_buf_puts(out, "if (");
    ir_print_expr(out, s->e);
    dg_buf_putc(out, ')');
    print_sub(out, s->then, d);
    while (s->els && s->els->kind == DG_ST_IF && !s->els->unroll) {
      s = s->els;
      dg_buf_puts(out, " else if (");
      ir_print_expr(out, s->e);
      dg_buf_putc(out, ')');
      print_sub(out, s->then, d);
    }
    if (s->els) {
      dg_buf_puts(out, " else");
      print_sub(out, s->els, d);
    }
    dg_buf_putc(out, '\n');
    return;
  case DG_ST_FOR:
    dg_buf_puts(out, "for (");
    if (s->init) {
      if (s->init->kind == DG_ST_DECL) print_decl(out, s->init);
      else if (s->init->kind == DG_ST_EXPR) ir_print_expr(out, s->init->e);
      else if (s->init->kind == DG_ST_BLOCK)
        for (int i = 0; i < s->init->nbody; i++) {
          if (i) dg_buf_puts(out, ", ");
          if (s->init->body[i]->kind == DG_ST_DECL) print_decl(out, s->init->body[i]);
        }
    }
    dg_buf_puts(out, "; ");
    if (s->e) ir_print_expr(out, s->e);
    dg_buf_puts(out, "; ");
    if (s->step) ir_print_expr(out, s->step);
    dg_buf_putc(out, ')');
    print_sub(out, s->then, d);
    dg_buf_putc(out, '\n');
    return;
  case DG_ST_WHILE:
    dg_buf_puts(out, "while (");
    ir_print_expr(out, s->e);
    dg_buf_putc(out, ')');
    print_sub(out, s->then, d);
    dg_buf_putc(out, '\n');
    return;
  case DG_ST_DO:
    dg_buf_puts(out, "do");
    print_sub(out, s->then, d);
    dg_buf_puts(out, " while (");
    ir_print_expr(out, s->e);
    dg_buf_puts(out, ");\n");
    return;
  case DG_ST_BREAK: dg_buf_puts(out, "break;\n"); return;
  case DG_ST_CONTINUE: dg_buf_puts(out, "continue;\n"); return;
  case DG_ST_RETURN:
    dg_buf_puts(out, "return");
    if (s->e) { dg_buf_putc(out, ' '); ir_print_expr(out, s->e); }
    dg_buf_puts(out, ";\n");
    return;
  case DG_ST_SWITCH:
    dg_buf_puts(out, "switch (");
    ir_print_expr(out, s->e);
    dg_buf_puts(out, ") {\n");
    for (int i = 0; i <= s->nbody; i++) {
      for (int c = 0; c < s->ncases; c++) {
        if (s->cases[c].first != i) continue;
        indent(out, d);
        if (s->cases[c].is_default) dg_buf_puts(out, "default:\n");
        else dg_buf_printf(out, "case %lld:\n", (long long)s->cases[c].value);
      }
      if (i < s->nbody) print_stmt(out, s->body[i], d + 1);
    }
    indent(out, d);
    dg_buf_puts(out, "}\n");
    return;
  case DG_ST_NOP: dg_buf_puts(out, ";\n"); return;
  default: dg_buf_puts(out, "<?>;\n"); return;
  }
}

void ir_print_func(dg_buf *out, const dg_module *m, const dg_func *f)
{
  (void)m;
  dg_buf_printf(out, "%s%s %s(", f->is_kernel ? "__global__ " : "__device__ ", ir_type_name(f->ret), f->name);
  for (int i = 0; i < f->nparams; i++) {
    const dg_var *p = f->params[i];
    dg_buf_printf(out, "%s%s%s %s", i ? ", " : "", p->by_ref ? "ref " : "", ir_type_name(p->type), p->name);
  }
  dg_buf_printf(out, ")  // %d slots\n", f->nslots);
  if (!f->body) { dg_buf_puts(out, "  <no body>\n"); return; }
  dg_buf_puts(out, "{\n");
  for (int i = 0; i < f->nshared; i++) {
    const dg_var *v = f->shared[i];
    dg_buf_printf(out, "  %s__shared__ %s %s;\n", v->kind == DG_VAR_SHARED_EXTERN ? "extern " : "", ir_type_name(v->type), v->name);
  }
  for (int i = 0; i < f->body->nbody; i++) print_stmt(out, f->body->body[i], 1);
  dg_buf_puts(out, "}\n");
}

/* fe_int.h — internals shared by the front end's files (fe*.c): the CST node
 * kinds, scopes, the module state and the per-function lowering context. */
#ifndef DG_FE_INT_H
#define DG_FE_INT_H
#include "fe.h"
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_cuda(void);

/* Named CST node kinds the lowering looks at (one list, mapped from the
 * grammar's symbols once). Anything else is FE_N_OTHER. */
#define FE_NODES(X) \
  X(translation_unit) X(function_definition) X(declaration) X(template_declaration) \
  X(linkage_specification) X(type_definition) X(alias_declaration) X(preproc_call) \
  X(static_assert_declaration) X(namespace_definition) X(declaration_list) \
  X(primitive_type) X(sized_type_specifier) X(type_identifier) X(qualified_identifier) \
  X(placeholder_type_specifier) X(type_qualifier) X(storage_class_specifier) \
  X(type_descriptor) X(template_type) X(struct_specifier) X(class_specifier) \
  X(union_specifier) X(enum_specifier) X(function_declarator) X(pointer_declarator) \
  X(array_declarator) X(init_declarator) X(reference_declarator) \
  X(parenthesized_declarator) X(abstract_pointer_declarator) X(abstract_array_declarator) \
  X(abstract_reference_declarator) X(identifier) X(field_identifier) \
  X(parameter_list) X(parameter_declaration) X(optional_parameter_declaration) \
  X(type_parameter_declaration) X(optional_type_parameter_declaration) \
  X(variadic_parameter_declaration) X(template_parameter_list) X(template_argument_list) \
  X(compound_statement) X(expression_statement) X(if_statement) X(else_clause) \
  X(for_statement) X(for_range_loop) X(while_statement) X(do_statement) \
  X(break_statement) X(continue_statement) X(return_statement) X(switch_statement) \
  X(case_statement) X(goto_statement) X(labeled_statement) X(condition_clause) \
  X(number_literal) X(true) X(false) X(null) X(nullptr) X(char_literal) \
  X(string_literal) X(concatenated_string) X(raw_string_literal) \
  X(field_expression) X(subscript_expression) X(subscript_argument_list) \
  X(call_expression) X(argument_list) X(template_function) X(binary_expression) \
  X(unary_expression) X(pointer_expression) X(update_expression) \
  X(assignment_expression) X(conditional_expression) X(cast_expression) \
  X(sizeof_expression) X(parenthesized_expression) X(comma_expression) \
  X(initializer_list) X(compound_literal_expression) X(kernel_call_syntax) \
  X(lambda_expression) X(new_expression) X(delete_expression) X(throw_statement) \
  X(try_statement) X(gnu_asm_expression) X(launch_bounds) X(attribute_specifier) \
  X(attribute_declaration) X(ms_declspec_modifier) X(template_instantiation) \
  X(using_declaration) X(comment) X(ERROR) X(namespace_identifier) X(auto) \
  X(alignof_expression) X(offsetof_expression) X(field_declaration_list) \
  X(preproc_include) X(preproc_def) X(preproc_function_def) X(preproc_if) \
  X(preproc_ifdef) X(preproc_else) X(preproc_elif) X(friend_declaration) \
  X(virtual_specifier) X(explicit_function_specifier) X(operator_name) \
  X(destructor_name) X(template_method) X(co_return_statement) X(seh_try_statement) \
  X(attributed_statement) X(type_requirement) X(decltype) X(user_defined_literal) \
  X(empty_declaration) X(field_declaration) X(bitfield_clause) X(base_class_clause)

typedef enum {
  FE_N_OTHER,
#define X(n) FE_N_##n,
  FE_NODES(X)
#undef X
  FE_N__COUNT
} fe_nkind;

fe_nkind fe_kind(TSNode n);   /* FE_N_OTHER for anonymous and unknown nodes */

/* ---- template parameters and arguments ------------------------------------ */
typedef enum { FE_TP_TYPE, FE_TP_VALUE, FE_TP_FUNC } fe_tpkind;

typedef struct {
  fe_tpkind kind;
  const dg_type *type;    /* TYPE: the type; VALUE: the constant's type */
  const char *scope;      /* TYPE naming a struct of static device functions (type NULL) */
  int64_t ival;           /* VALUE */
  dg_func *func;          /* FUNC */
} fe_targ;

typedef struct {
  const char *name;
  fe_tpkind kind;
  TSNode type_node;       /* VALUE: its declared type (may name earlier params) */
  TSNode deflt;           /* default value / type; null node if none */
} fe_tparam;

/* ---- symbols and scopes ------------------------------------------------- */
typedef enum {
  FE_SYM_VAR,       /* var; is_ref: the var holds a pointer, uses dereference it */
  FE_SYM_CINT,      /* integer constant of type (constexpr, template value) */
  FE_SYM_CFLOAT,    /* float constant of type */
  FE_SYM_TYPE,      /* typedef, using, template type parameter */
  FE_SYM_FUNC,      /* a device function bound to a template parameter */
  FE_SYM_HOSTVAR,   /* a host-side variable: an error when used in device code */
} fe_symkind;

typedef struct {
  const char *name;
  fe_symkind kind;
  dg_var *var;
  bool is_ref;
  const dg_type *type;
  const char *scope;      /* FE_SYM_TYPE bound to a struct of static device functions */
  int64_t ival;
  double fval;
  dg_func *func;
} fe_sym;

typedef DG_VEC(fe_sym) fe_symvec;

/* A function definition found in the file (template or not). */
typedef struct fe_def {
  const char *name;
  TSNode node;            /* function_definition */
  TSNode decl;            /* its function_declarator */
  fe_tparam *tparams;     /* templates only */
  int ntparams;
  bool is_template, is_kernel;
  TSNode spec_args;       /* explicit specialisation (template <> f<__half>(...)): its arguments */
  dg_func *func;          /* non-templates: the shell made in the first pass */
  bool failed, done, busy;
  struct fe_def *next_same_name;
} fe_def;

typedef struct {
  fe_def *def;
  fe_targ *args;
  int nargs;
  dg_func *func;          /* NULL while being lowered or when it failed */
  bool failed;
} fe_inst;

typedef struct fe_finfo { dg_func *f; dg_func **callees; int ncallees; bool ok; } fe_finfo;

/* A struct the front end refuses (constructors, bit-fields, ...): reported
 * where device code uses it. */
typedef struct { const char *name; const char *why; } fe_badstruct;

/* The module's front-end state (dg_module.fe_private). */
typedef struct fe_state {
  dg_module *m;
  dg_diags *d;            /* caller's diagnostics for the current request (may be NULL) */
  const char *src;        /* the text tree-sitter parsed (pp output or the raw file) */
  size_t len;
  pp_result pp;
  bool have_pp;
  uint32_t file;
  DG_VEC(uint32_t) lines; /* raw mode: byte offset of each line start */
  TSParser *parser;
  TSTree *tree;
  DG_VEC(fe_def *) defs;
  fe_def **def_hash;      /* open addressing by name: the first def of each name */
  size_t def_hash_cap;
  fe_symvec globals;      /* typedefs, file-scope constants, __device__ variables */
  DG_VEC(fe_inst *) insts;
  DG_VEC(fe_def *) specs;         /* explicit specialisations */
  DG_VEC(const char *) structs;   /* struct names whose static device functions are defs "S::f" */
  DG_VEC(TSNode) explicit_insts;  /* template __global__ void k<float>(...); */
  DG_VEC(fe_badstruct) bad_structs;
  int struct_depth;       /* struct definitions being read (nested anonymous members) */
  DG_VEC(struct fe_finfo) infos;  /* every lowered function and its callees */
  int inst_depth;
} fe_state;

/* ---- per-function lowering ------------------------------------------------ */
typedef struct fe_fn {
  fe_state *st;
  dg_module *m;
  dg_func *f;
  fe_symvec scope;
  DG_VEC(size_t) marks;
  DG_VEC(dg_var *) locals;
  DG_VEC(dg_var *) shared;
  DG_VEC(dg_func *) callees;
  bool failed;
  bool global_scope;      /* lowering file-scope initialisers: no locals */
  bool quiet;             /* errors fail silently (host-side declarations) */
  int depth;
  int loops, switches;
  const dg_type *ret;
  uint32_t prev_end;      /* end byte of the previous statement (pragma lookup) */
} fe_fn;

/* fe.c */
dg_span fe_span(fe_state *st, TSNode n);
void fe_diag(fe_state *st, dg_severity sev, TSNode n, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));
char *fe_text(fe_state *st, TSNode n);          /* arena copy of the node's text */
bool fe_text_is(fe_state *st, TSNode n, const char *s);
TSNode fe_field(TSNode n, const char *field);
/* A string literal's field id is looked up once per call site (the lookup is a
 * string search); anything else goes through the function. */
TSFieldId fe_field_id(const char *field);
TSNode fe_field_by_id(TSNode n, TSFieldId id);
#define fe_field(n, field) \
  (__builtin_constant_p(field) ? fe_field_by_id((n), __extension__({ \
     static TSFieldId fe_fid_; \
     TSFieldId fe_i_ = __atomic_load_n(&fe_fid_, __ATOMIC_RELAXED); \
     if (!fe_i_) { fe_i_ = fe_field_id(field); __atomic_store_n(&fe_fid_, fe_i_, __ATOMIC_RELAXED); } \
     fe_i_; })) : (fe_field)((n), (field)))
bool fe_has_keyword(TSNode n, const char *kw);  /* anonymous child spelled kw */
/* The first ERROR or MISSING node inside n (n has an error), else the deepest
 * node on the path to one; where a syntax error is reported. */
TSNode fe_first_error(TSNode n);
const fe_sym *fe_lookup(fe_fn *fn, const char *name, size_t len);
/* The function a call of def's name (with explicit template arguments targs,
 * possibly null) resolves to: overloads by arity, templates instantiated. */
dg_func *fe_call_target(fe_fn *fn, fe_def *def, TSNode targs, TSNode at, dg_expr **args, int nargs);
int fe_pragma_unroll(fe_fn *fn, TSNode stmt);    /* 0 none, -1 full, n */

/* fe_module.c: drops the functions whose callees have errors (with a note
 * each) and marks their defs failed. */
void fe_drop_failed(fe_state *st);

/* fe_err: records an error (the first of the function only) and returns a
 * harmless expression so that lowering can go on without NULL checks. */
dg_expr *fe_err(fe_fn *fn, TSNode n, dg_severity sev, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));

/* fe_types.c */
const dg_type *fe_scalar(dg_tykind k);
const dg_type *fe_type_by_name(fe_fn *fn, const char *name, size_t len);
/* Type of a declaration's specifiers (node has "type" field and qualifiers). */
const dg_type *fe_decl_type(fe_fn *fn, TSNode decl, bool *is_const);
/* Applies a declarator to a base type; *name_node gets the identifier. */
const dg_type *fe_declarator(fe_fn *fn, TSNode decl, const dg_type *base, bool base_const,
                             dg_addrspace ptr_space, TSNode *name_node, bool *is_ref);
const dg_type *fe_type_descriptor(fe_fn *fn, TSNode td);
const dg_type *fe_type_from_text(fe_fn *fn, const char *s);  /* "const float*", "unsigned int" */
const dg_type *fe_promote(const dg_type *t);
const dg_type *fe_arith(const dg_type *a, const dg_type *b);
void fe_scope_push(fe_fn *fn);
void fe_scope_pop(fe_fn *fn);
fe_sym *fe_bind(fe_fn *fn, const char *name, fe_symkind kind);

/* fe_expr.c */
dg_expr *fe_expr(fe_fn *fn, TSNode n);                  /* an rvalue or lvalue as written */
dg_expr *fe_rvalue(fe_fn *fn, TSNode n);                /* arrays decayed */
dg_expr *fe_cond(fe_fn *fn, TSNode n);                  /* converted to bool */
dg_expr *fe_convert(fe_fn *fn, dg_expr *e, const dg_type *to, TSNode at);
dg_expr *fe_decay(fe_fn *fn, dg_expr *e);
dg_expr *fe_new_expr(fe_fn *fn, dg_exkind k, const dg_type *t, TSNode at);
bool fe_const_int(fe_fn *fn, TSNode n, int64_t *out);  /* folds; false (no diag) if not constant */
bool fe_fold(const dg_expr *e, int64_t *iv, double *fv, bool *is_float);

/* fe_stmt.c */
dg_stmt *fe_stmt(fe_fn *fn, TSNode n);
dg_stmt *fe_body(fe_fn *fn, TSNode compound);
typedef DG_VEC(dg_stmt *) fe_stmtvec;
void fe_local_decl(fe_fn *fn, TSNode decl, fe_stmtvec *out);

/* fe_struct.c */
/* Defines the struct of a struct_specifier with a body at file scope (alias:
 * the typedef name, NULL if none) and binds its name(s); NULL when it has no
 * data members or cannot be supported (the reason is kept for its uses). */
const dg_type *fe_struct_define(fe_state *st, TSNode spec, const char *alias);
const dg_type *fe_struct_type(fe_fn *fn, TSNode spec);   /* a struct_specifier as a type */
const char *fe_struct_why(fe_state *st, const char *name, size_t len);  /* NULL: not refused */
dg_expr *fe_member(fe_fn *fn, dg_expr *base, TSNode fld, TSNode at);  /* base.fld of a struct */
dg_expr *fe_zero(fe_fn *fn, const dg_type *t, TSNode at);             /* T{} */
/* A brace list as a value of struct or vector type t (a VECBUILD). */
dg_expr *fe_aggregate(fe_fn *fn, TSNode list, const dg_type *t);

/* fe_func.c */
bool fe_lower_func(fe_state *st, fe_def *def, dg_func *f, const fe_targ *targs, int ntargs);
bool fe_signature(fe_state *st, fe_def *def, dg_func *f, const fe_targ *targs, int ntargs);
dg_func *fe_instance(fe_state *st, fe_def *def, fe_targ *args, int nargs, TSNode at);
int fe_tparams(fe_state *st, TSNode list, fe_tparam **out);
fe_def *fe_find_def(fe_state *st, const char *name, size_t len);
void fe_def_hash_add(fe_state *st, fe_def *d);
const char *fe_struct_name(fe_fn *fn, const char *name, size_t len);  /* struct or type param bound to one */
void fe_bind_targs(fe_fn *fn, const fe_def *def, const fe_targ *args, int nargs);
char *fe_inst_name(fe_state *st, const fe_def *def, const fe_targ *args, int nargs);

#endif

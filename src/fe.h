/* fe.h — the CUDA front end: preprocessor → tree-sitter CST → typed kernel IR
 * (ir.h). Kernels and device functions of a file load independently: one that
 * uses something unsupported is dropped with a diagnostic, the others load. */
#ifndef DG_FE_H
#define DG_FE_H
#include "ir.h"
#include "pp.h"

typedef struct {
  const pp_define *defines;    /* -D NAME=VALUE, before the file's own #defines */
  int ndefines;
  const char *const *instantiate;  /* template instances to build at load: "reduce6<float, 256, true>" */
  int ninstantiate;
  bool instantiate_launches;   /* also instantiate templated kernels launched in host code
                                * with fully concrete template arguments */
} fe_options;

/* Reads and lowers path (through sm, which must outlive the module).
 * Diagnostics go to d (when not NULL) and are kept in module->diags as well.
 * Returns NULL only when the file cannot be read or parsed at all (d says why);
 * otherwise a module, possibly with errors. opt may be NULL.
 * The caller frees the module with fe_module_free. */
dg_module *fe_load(dg_srcmgr *sm, const char *path, const fe_options *opt, dg_diags *d);

/* Lowers from a string already registered in sm (tests, fuzzing). Same contract. */
dg_module *fe_load_file(dg_srcmgr *sm, uint32_t file, const fe_options *opt, dg_diags *d);

/* Instantiates template `name_with_args` ("reduce6<float, 256, true>",
 * "trimul<matmul_tri4>"): integer and bool constants, type names and
 * device-function names as arguments; missing ones take the template's
 * defaults. A second request for the same instance returns the same function.
 * The function belongs to m (appended to m->funcs). NULL with a diagnostic in
 * d (and m->diags) on error. */
dg_func *fe_instantiate(dg_module *m, const char *name_with_args, dg_diags *d);

/* A function of m by name (instances by their spelling, spaces ignored);
 * NULL if none. */
dg_func *fe_find(const dg_module *m, const char *name);

/* The declaration of template i of m->templates as written, up to its body
 * ("template <typename T, int BS = 256> __global__ void k(T *x, int n)").
 * Owned by m. */
const char *fe_template_decl(const dg_module *m, size_t i);

/* Frees the module, its IR and the front end's private state (not the srcmgr). */
void fe_module_free(dg_module *m);

#endif

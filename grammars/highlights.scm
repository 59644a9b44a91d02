; highlights.scm — dirigo's own highlight query for the tree-sitter-cuda grammar.
; Capture names are dotted; a theme maps them by longest prefix
; (function.builtin falls back to function). For one node the pattern written
; first wins, so specific patterns come before general ones; an inner node
; wins over an outer one. Supported predicates: #eq? #match? #any-of? (and not-).
;
; Cost: tree-sitter analyses every pattern that has children against the whole
; C++/CUDA parse table when the query is compiled, 5-50 M instructions each
; (a bare node or a node with predicates costs nothing). The first paint waits
; for this, so patterns with children are few: calls, definitions, template
; calls, launches, macros. Parameters, method calls and qualified names are
; left plain on purpose (together they cost more than the rest of the file).

; ---- CUDA thread geometry and other builtin variables ----------------------
((identifier) @variable.builtin
  (#any-of? @variable.builtin "threadIdx" "blockIdx" "blockDim" "gridDim" "warpSize"))

; ---- CUDA intrinsics and device math (before plain calls) ------------------
; Matched on the name alone (no call_expression parent, which would cost a
; pattern analysis): these names are calls in kernel code.
((identifier) @function.builtin
  (#match? @function.builtin "^(__[a-z0-9_]+|atomic[A-Z][A-Za-z]*|make_(u?(char|short|int|long|longlong)|float|double|half)[1-4]?)$"))
((identifier) @function.builtin
  (#any-of? @function.builtin
    "expf" "exp" "exp2f" "logf" "log" "log2f" "sqrtf" "sqrt" "rsqrtf" "tanhf" "tanh"
    "erff" "powf" "pow" "fmaxf" "fminf" "fmax" "fmin" "fabsf" "fabs" "floorf" "ceilf"
    "fmaf" "max" "min" "abs" "sinf" "cosf" "roundf" "truncf"))

; ---- kernel launches: k<<<grid, block>>>(args) ----------------------------
(kernel_call_syntax "<<<" @punctuation.launch ">>>" @punctuation.launch)

; ---- definitions and calls ------------------------------------------------
(function_declarator declarator: (identifier) @function.definition)
(call_expression function: (identifier) @function.call)
(template_function name: (identifier) @function.call)
(preproc_function_def name: (identifier) @function.macro)

; ---- types ------------------------------------------------------------------
(primitive_type) @type.builtin
(sized_type_specifier) @type.builtin
((type_identifier) @type.builtin
  (#match? @type.builtin "^(u?(char|short|int|long|longlong)[1-4]|float[1-4]|double[1-4]|half2?|__half2?|__nv_bfloat162?|size_t|u?int(8|16|32|64)_t|dim3)$"))
(type_identifier) @type
(namespace_identifier) @namespace
(auto) @type.builtin

; ---- constants and literals -------------------------------------------------
((identifier) @constant
  (#match? @constant "^[A-Z][A-Z0-9_]+$"))
(preproc_def name: (identifier) @constant.macro)
(number_literal) @number
(char_literal) @string.char
(string_literal) @string
(raw_string_literal) @string
(concatenated_string) @string
(system_lib_string) @string.include
(escape_sequence) @string.escape
(true) @constant.builtin
(false) @constant.builtin
(null) @constant.builtin
(this) @variable.builtin

; ---- names -----------------------------------------------------------------
(field_identifier) @property
(statement_identifier) @label

; ---- comments ---------------------------------------------------------------
(comment) @comment

; ---- CUDA qualifiers and attributes ------------------------------------------
["__global__" "__device__" "__host__" "__shared__" "__constant__" "__managed__"
 "__forceinline__" "__noinline__" "__restrict__" "__grid_constant__" "__local__"] @keyword.cuda
(launch_bounds "__launch_bounds__" @keyword.cuda)
(attribute_specifier) @attribute

; ---- preprocessor -------------------------------------------------------------
["#define" "#include" "#if" "#ifdef" "#ifndef" "#else" "#elif" "#endif"] @keyword.directive
(preproc_directive) @keyword.directive
(preproc_arg) @constant.macro

; ---- keywords -----------------------------------------------------------------
["if" "else" "switch" "case" "default"] @keyword.conditional
["for" "while" "do" "break" "continue" "goto"] @keyword.repeat
["return"] @keyword.return
["template" "typename" "class" "struct" "union" "enum" "typedef" "using" "namespace"] @keyword.type
["const" "constexpr" "volatile" "static" "extern" "inline" "register" "restrict"
 "unsigned" "signed" "long" "short" "mutable" "thread_local"] @keyword.modifier
(type_qualifier) @keyword.modifier
(storage_class_specifier) @keyword.modifier
["sizeof" "new" "delete" "operator" "static_assert" "decltype" "alignof" "noexcept"
 "try" "catch" "throw" "friend" "virtual" "public" "private" "protected"] @keyword
["nullptr" "NULL"] @constant.builtin

; ---- operators and punctuation ------------------------------------------------
["=" "+=" "-=" "*=" "/=" "%=" "&=" "|=" "^=" "<<=" ">>="
 "+" "-" "*" "/" "%" "++" "--" "==" "!=" "<" ">" "<=" ">="
 "&&" "||" "!" "&" "|" "^" "~" "<<" ">>" "?" "->"] @operator
["(" ")" "[" "]" "{" "}"] @punctuation.bracket
["," ";" "." ":" "::"] @punctuation.delimiter

; highlights.scm — dirigo's own highlight query for the tree-sitter-cuda grammar.
; Capture names are dotted; a theme maps them by longest prefix
; (function.builtin falls back to function). For one node the pattern written
; first wins, so specific patterns come before general ones; an inner node
; wins over an outer one. Supported predicates: #eq? #match? #any-of? (and not-).

; ---- CUDA thread geometry and other builtin variables ----------------------
((identifier) @variable.builtin
  (#any-of? @variable.builtin "threadIdx" "blockIdx" "blockDim" "gridDim" "warpSize"))

; ---- CUDA intrinsics and device math (before plain calls) ------------------
(call_expression
  function: (identifier) @function.builtin
  (#match? @function.builtin "^(__[a-z0-9_]+|atomic[A-Z][A-Za-z]*|make_(u?(char|short|int|long|longlong)|float|double|half)[1-4]?)$"))
(call_expression
  function: (identifier) @function.builtin
  (#any-of? @function.builtin
    "expf" "exp" "exp2f" "logf" "log" "log2f" "sqrtf" "sqrt" "rsqrtf" "tanhf" "tanh"
    "erff" "powf" "pow" "fmaxf" "fminf" "fmax" "fmin" "fabsf" "fabs" "floorf" "ceilf"
    "fmaf" "max" "min" "abs" "sinf" "cosf" "roundf" "truncf"))

; ---- kernel launches: k<<<grid, block>>>(args) ----------------------------
(call_expression
  function: (identifier) @function.kernel
  (kernel_call_syntax))
(call_expression
  function: (template_function name: (identifier) @function.kernel)
  (kernel_call_syntax))
(kernel_call_syntax "<<<" @punctuation.launch ">>>" @punctuation.launch)

; ---- definitions and calls ------------------------------------------------
(function_declarator declarator: (identifier) @function.definition)
(function_declarator declarator: (field_identifier) @function.definition)
(function_declarator declarator: (qualified_identifier name: (identifier) @function.definition))
(call_expression function: (identifier) @function.call)
(call_expression function: (field_expression field: (field_identifier) @function.method))
(call_expression function: (qualified_identifier name: (identifier) @function.call))
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
(parameter_declaration declarator: (identifier) @variable.parameter)
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @variable.parameter))
(parameter_declaration declarator: (reference_declarator (identifier) @variable.parameter))

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

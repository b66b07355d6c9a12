; Capture convention: see python.scm. `.h` headers are parsed as C++
; (indexer/languages.py says why).
(namespace_definition
  name: [
    (namespace_identifier)
    (nested_namespace_specifier)  ; C++17 `namespace app::detail {`
  ] @name) @scope

(class_specifier
  name: [
    (type_identifier) @name
    ; `class Regexp::ParseState {`: a nested class defined outside its class
    (qualified_identifier name: (type_identifier) @name)
    ; a specialization, `struct formatter<Date> {`: named by its template, so
    ; its methods are members (formatter.format), not free functions
    (template_type name: (type_identifier) @name)
  ]
  body: (field_declaration_list)) @definition.class

(struct_specifier
  name: [
    (type_identifier) @name
    (qualified_identifier name: (type_identifier) @name)
    (template_type name: (type_identifier) @name)
  ]
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum

; a method defined outside its class: Repository::save (extract.py prefixes
; the scope to its container; a `::` the parser had to invent is a C macro
; before the name, `int __init f(void)`, and makes a plain function)
(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier name: (identifier) @name))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier name: (identifier) @name)))
    (reference_declarator
      (function_declarator declarator: (qualified_identifier name: (identifier) @name)))
    ; `bool Regexp::ParseState::Push()`, `void app::Repo::save()`: two scopes written
    (function_declarator
      declarator: (qualified_identifier
        name: (qualified_identifier name: (identifier) @name)))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier
          name: (qualified_identifier name: (identifier) @name))))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier
          name: (qualified_identifier name: (identifier) @name))))
    ; three (`void a::b::C::f()`)
    (function_declarator
      declarator: (qualified_identifier
        name: (qualified_identifier
          name: (qualified_identifier name: (identifier) @name))))
    ; `RawBlock* const& Chain::back()`, `char** Args::argv()`
    (pointer_declarator
      declarator: [
        (pointer_declarator
          declarator: (function_declarator
            declarator: (qualified_identifier name: (identifier) @name)))
        (reference_declarator
          (function_declarator declarator: (qualified_identifier name: (identifier) @name)))
      ])
  ]) @definition.method

; a destructor: `~Repo() {...}` in its class, `Repo::~Repo() {...}` outside it
; (named `~Repo`, as ctags names it), so the calls in it are the class's
(function_definition
  declarator: (function_declarator declarator: (destructor_name) @name)) @definition.method

(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier name: (destructor_name) @name))) @definition.method

(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier)] @name)
    (pointer_declarator
      declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))
    (reference_declarator
      (function_declarator declarator: [(identifier) (field_identifier)] @name))
    (pointer_declarator
      declarator: [
        (pointer_declarator
          declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))
        (reference_declarator
          (function_declarator declarator: [(identifier) (field_identifier)] @name))
      ])
  ]) @definition.function

; methods declared in a class body (`Iterator* NewIterator();`, `T& at(int);`)
(field_declaration
  declarator: [
    (function_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
    (reference_declarator (function_declarator declarator: (field_identifier) @name))
    (pointer_declarator
      declarator: [
        (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
        (reference_declarator (function_declarator declarator: (field_identifier) @name))
      ])
  ]) @definition.method

(type_definition
  declarator: (type_identifier) @name) @definition.type

(alias_declaration
  name: (type_identifier) @name) @definition.type

(preproc_def
  name: (identifier) @name) @definition.constant

(preproc_function_def
  name: (identifier) @name) @definition.macro

; a prototype: the file declares a function that another file may define
; (indexer/bind_c.py); stored as a `declare` row, not listed as a reference.
; `void __init f(void);` parses as `__init::f` with the `::` missing, which
; bind_c.declared() accepts as `f`
(declaration
  declarator: [
    (function_declarator declarator: [(identifier) (qualified_identifier name: (identifier))] @name)
    (pointer_declarator
      declarator: (function_declarator
        declarator: [(identifier) (qualified_identifier name: (identifier))] @name))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator
          declarator: [(identifier) (qualified_identifier name: (identifier))] @name)))
  ]) @reference.declare

(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (qualified_identifier name: (identifier) @name)
    (qualified_identifier name: (qualified_identifier name: (identifier) @name))
    (qualified_identifier
      name: (qualified_identifier name: (qualified_identifier name: (identifier) @name)))
    ; with template arguments: `make<int>(1)`, `detail::make_arg<Context>(v)`,
    ; `obj.get<int>()`
    (template_function name: (identifier) @name)
    (qualified_identifier name: (template_function name: (identifier) @name))
    (qualified_identifier
      name: (qualified_identifier name: (template_function name: (identifier) @name)))
    (field_expression field: (template_method name: (field_identifier) @name))
  ]) @reference.call

(new_expression
  type: (type_identifier) @name) @reference.call

(base_class_clause
  [
    (type_identifier) @name
    (qualified_identifier name: (type_identifier) @name)
  ]) @reference.inherit

(preproc_include
  path: [
    (string_literal (string_content) @name)
    (system_lib_string) @name
  ]) @reference.import

(parameter_declaration
  type: (type_identifier) @name) @reference.type

; a function named in a designated initializer, as an ops table names its
; handlers (`.open = drv_open`): a use, bound through the includes as a call
; is; extract.py drops an all-capitals name (a macro's or enumerator's value)
(initializer_pair value: (identifier) @name @reference.use)

; a member function's address passed or stored as a value (`Schedule(&DB::BGWork,
; this)`, `method = &Benchmark::WriteSeq`, Qt's `connect(a, &A::done, b,
; &B::onDone)`): a use, claimed with its written scope as `DB::BGWork()` is
(pointer_expression
  argument: (qualified_identifier
    name: [(identifier) @name (qualified_identifier name: (identifier) @name)])) @reference.use

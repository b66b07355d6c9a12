; Capture convention: see python.scm.
(namespace_declaration
  name: [(identifier) (qualified_name)] @name) @scope

(file_scoped_namespace_declaration
  name: [(identifier) (qualified_name)] @name) @scope

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(property_declaration name: (identifier) @name) @definition.property
; a local function: visible in the method that declares it (extract.py)
(local_function_statement name: (identifier) @name) @definition.function

(field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field

(invocation_expression
  function: [
    (identifier) @name
    (member_access_expression name: (identifier) @name)
  ]) @reference.call

;; a method group passed or stored as a value: `xs.Select(Parse)`,
;; `button.Click += OnClick`, `Func<int> f = Compute;`, `this.Parse`
;; (extract.py keeps those naming a method of the class around it)
(argument [(identifier) @name (member_access_expression "this" name: (identifier) @name)] @reference.use)
(assignment_expression right: [(identifier) @name (member_access_expression "this" name: (identifier) @name)] @reference.use)
(variable_declarator "=" . (identifier) @name @reference.use)

(object_creation_expression
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
  ]) @reference.call

(base_list
  [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
  ]) @reference.inherit

;; the namespace or type a using names, its last part; an alias's own name
;; (`using Assert = Acme.Tests.XUnitAssert;`) is the row's alias
(using_directive
  name: (identifier)? @alias
  [(identifier) (qualified_name)] @name .) @reference.import

(parameter
  type: (identifier) @name) @reference.type

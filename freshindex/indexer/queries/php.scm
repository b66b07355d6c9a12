; Capture convention: see python.scm. `namespace X;` without braces names the
; container of the rest of the file (extract.py).
(namespace_definition
  name: (namespace_name) @name) @scope

(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(const_declaration (const_element (name) @name)) @definition.constant

; a class's property (`private $repo;`), named without its `$`
(property_declaration
  (property_element name: (variable_name (name) @name))) @definition.field

(function_call_expression
  function: [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.call

(member_call_expression name: (name) @name) @reference.call
(nullsafe_member_call_expression name: (name) @name) @reference.call
(scoped_call_expression name: (name) @name) @reference.call

(object_creation_expression
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.call

(base_clause
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.inherit

(class_interface_clause
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.inherit

(namespace_use_clause
  (qualified_name) @name
  (name)? @alias) @reference.import

(namespace_use_clause
  .
  (name) @name) @reference.import

(require_once_expression (_ (string (string_content) @name))) @reference.import
(require_expression (_ (string (string_content) @name))) @reference.import
(include_expression (_ (string (string_content) @name))) @reference.import
(include_once_expression (_ (string (string_content) @name))) @reference.import

(named_type [(name) (qualified_name (name))] @name) @reference.type

; a method named as a callable array: a route's `[UserController::class,
; 'index']`, `array_map([$this, 'format'], $xs)`, `[self::class, 'cmp']`
; (bind_php.py types the first element as it types a call's receiver)
(array_creation_expression
  . (array_element_initializer [(class_constant_access_expression) (variable_name)])
  . (array_element_initializer (string (string_content) @name))
  .) @reference.use

; a function named in a string where a callable-taking function expects one
; (`add_action('init', 'my_init')`, `usort($xs, 'cmp')`): extract.py keeps
; only the argument bind_php.CALLBACK_ARGUMENTS names
(function_call_expression
  function: (name)
  arguments: (arguments (argument (string (string_content) @name)) @reference.use))

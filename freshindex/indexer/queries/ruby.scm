; Capture convention: see python.scm. An import is a require-like call
; (extract.py keeps require, require_relative, load and autoload only).
(module
  name: [(constant) (scope_resolution)] @name) @definition.module

(class
  name: [(constant) (scope_resolution)] @name) @definition.class

(method
  name: (_) @name) @definition.method

(singleton_method
  name: (_) @name) @definition.method

(assignment
  left: (constant) @name) @definition.constant

; `attr_reader :name` (and attr_accessor) in a class or module body defines
; the method `name`, the symbol its whole definition (extract.py drops its
; colon; summary.py shows the line)
([(class (body_statement
    (call
      method: (identifier) @_attr
      arguments: (argument_list (simple_symbol) @name @definition.method)
      (#any-of? @_attr "attr_reader" "attr_accessor"))))
  (module (body_statement
    (call
      method: (identifier) @_attr
      arguments: (argument_list (simple_symbol) @name @definition.method)
      (#any-of? @_attr "attr_reader" "attr_accessor"))))])

(call
  method: (identifier) @module
  arguments: (argument_list . (string (string_content) @name))) @reference.import

(call
  method: (identifier) @name) @reference.call

(superclass
  [(constant) (scope_resolution name: (constant))] @name) @reference.inherit

; a method of the class named by a symbol, which Ruby calls later: Rails'
; callbacks (`before_action :find_article!`, `after_save :index`, their `if:`
; and `unless:`), `validate :check`, `helper_method :current_user`, and
; `method(:save)`, `send(:save)` without a receiver (extract.py keeps those
; methods' symbols, RUBY_NAMING, and binds the name as a bare call of it; a
; text predicate here read the source through the parse's callback per match)
(call
  !receiver
  method: (identifier) @_named
  arguments: (argument_list
    [(simple_symbol) @name
     (pair key: (hash_key_symbol) @_condition value: (simple_symbol) @name)])) @reference.use

; a module mixed into a class or module is among its ancestors, as a base is:
; `include Helpers` in its body (not in a block: `describe do include X end`
; mixes into another class) makes Helpers' methods the class's
([(class (body_statement
    (call
      method: (identifier) @_mixin
      arguments: (argument_list [(constant) (scope_resolution name: (constant))] @name)
      (#any-of? @_mixin "include" "prepend")) @reference.inherit))
  (module (body_statement
    (call
      method: (identifier) @_mixin
      arguments: (argument_list [(constant) (scope_resolution name: (constant))] @name)
      (#any-of? @_mixin "include" "prepend")) @reference.inherit))])

(call
  method: (identifier) @_include
  arguments: (argument_list (constant) @name)) @reference.type

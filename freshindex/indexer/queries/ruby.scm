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

(call
  method: (identifier) @module
  arguments: (argument_list . (string (string_content) @name))) @reference.import

(call
  method: (identifier) @name) @reference.call

(superclass
  [(constant) (scope_resolution name: (constant))] @name) @reference.inherit

(call
  method: (identifier) @_include
  arguments: (argument_list (constant) @name)) @reference.type

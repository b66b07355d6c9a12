; Capture convention (one per language, aider-style):
;   @definition.<kind> on the defining node, @name on its name
;   @reference.<kind>  on the referring node,  @name on the referred name
;   @module on an import's module spec, @alias on a local alias
;   @scope on a node that names a container without being a symbol
(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.constant))

; a class attribute, a dataclass's or a model's field (`name: str`,
; `age: int = 0`, `KIND = "user"`); not what methods assign to self
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name) @definition.field)))

; an instance attribute a method sets at the top of its body (`self.cache =
; {}` in __init__); extract.py files it under the class, keeps the first
; assignment of each name, and none a class attribute or a method has
(class_definition
  body: (block
    [(function_definition
       body: (block
         (expression_statement
           (assignment
             left: (attribute
               object: (identifier) @_self
               attribute: (identifier) @name)) @definition.field)))
     (decorated_definition
       definition: (function_definition
         body: (block
           (expression_statement
             (assignment
               left: (attribute
                 object: (identifier) @_self
                 attribute: (identifier) @name)) @definition.field))))])
  (#eq? @_self "self"))

; Python references are not captured here: indexer/bind_python.py walks the
; tree with Python's scoping rules, so each reference says what it names.

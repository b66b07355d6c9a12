; Patterns that read the same in the JavaScript and the TypeScript grammars,
; appended to each language's own query (indexer/languages.py).

; a top-level object's keys holding functions (`const api = { get: () => ... }`):
; its methods, as `run() {}` in it is
(program
  (lexical_declaration
    (variable_declarator
      value: (object
        (pair
          key: (property_identifier) @name
          value: [(arrow_function) (function_expression)]) @definition.method))))

(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        value: (object
          (pair
            key: (property_identifier) @name
            value: [(arrow_function) (function_expression)]) @definition.method)))))

; and every key (`export const KEYS = { ENTER: "Enter" }`): its properties,
; read as `KEYS.ENTER`; a key holding a function stays the method above
; (extract.py: a method's capture replaces a property's), and a key
; holding an object is one property, its own keys are not
(program
  (lexical_declaration
    (variable_declarator
      value: (object
        (pair key: (property_identifier) @name) @definition.property))))

(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        value: (object
          (pair key: (property_identifier) @name) @definition.property)))))

; and a key written as its value's name (`export const Jwt = { sign, verify }`)
(program
  (lexical_declaration
    (variable_declarator
      value: (object (shorthand_property_identifier) @name @definition.property))))

(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        value: (object (shorthand_property_identifier) @name @definition.property)))))

; definitions made by assignment, as CommonJS and pre-class code writes
; them: `exports.run = function () {}` and `Repo.prototype.save = ...`
; anywhere, `app.listen = function listen() {}` at the top of a module (also
; the inner one of `req.get = req.header = function ...`); extract.py names
; the object (`Repo.save`, `app.listen`)
(assignment_expression
  left: (member_expression
    object: [(identifier) @_object (member_expression property: (property_identifier) @_object)]
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]
  (#match? @_object "^(exports|prototype)$")) @definition.function

(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (identifier) property: (property_identifier) @name)
      right: [(arrow_function) (function_expression)]) @definition.function))

(program
  (expression_statement
    (assignment_expression
      right: (assignment_expression
        left: (member_expression object: (identifier) property: (property_identifier) @name)
        right: [(arrow_function) (function_expression)]) @definition.function)))

; `module.exports = class Application extends Emitter {}`: a class named in
; the value an assignment gives
(assignment_expression
  right: (class name: (_) @name) @definition.class)

; re-exports: a barrel file's `export * from "./x"` and `export { a, b as c } from "./x"`
; are imports the linker follows to the file that defines the name
(export_statement
  "*" @name
  .
  "from"
  source: (string (string_fragment) @module)) @reference.import

(export_statement
  (export_clause
    (export_specifier name: (identifier) @name !alias))
  source: (string (string_fragment) @module)) @reference.import

(export_statement
  (export_clause
    (export_specifier name: (identifier) @name alias: (identifier) @alias))
  source: (string (string_fragment) @module)) @reference.import

; a name used as a value, not called here: passed (`app.get("/", list)`,
; `xs.map(parse)`), given to a property (`{ onClick: save }`, `{ save }`),
; assigned, returned, in an array, a spread, or either side of `??`, `||`,
; `? :`, a parameter's default (in each grammar's own query). extract.py keeps the row only where the name is one the file
; defines at its top or imports: a local's read names no definition.
(arguments (identifier) @name @reference.use)
(pair value: (identifier) @name @reference.use)
(object (shorthand_property_identifier) @name @reference.use)
(array (identifier) @name @reference.use)
(spread_element (identifier) @name @reference.use)
(return_statement (identifier) @name @reference.use)
(variable_declarator value: (identifier) @name @reference.use)
(assignment_expression right: (identifier) @name @reference.use)
(ternary_expression consequence: (identifier) @name @reference.use)
(ternary_expression alternative: (identifier) @name @reference.use)
(binary_expression left: (identifier) @name @reference.use operator: ["||" "??" "&&"])
(binary_expression operator: ["||" "??" "&&"] right: (identifier) @name @reference.use)
(arrow_function body: (identifier) @name @reference.use)
; a function bound or applied: `onerror: logerror.bind(this)`, `Base.call(this)`
(call_expression
  function: (member_expression
    object: (identifier) @name @reference.use
    property: (property_identifier) @_method)
  (#any-of? @_method "bind" "call" "apply"))

; a member passed or stored as a value: the class's own (`addEventListener("x",
; this.onResize)`, `{ onSave: this.save }`, `const f = this.save`, as
; `this.save()` names it), or a module's or an object's (`router.get("/",
; users.list)`, which flow_js.py claims as it does `users.list()`)
(arguments (member_expression object: [(this) (identifier)] property: (property_identifier) @name) @reference.use)
(pair value: (member_expression object: [(this) (identifier)] property: (property_identifier) @name) @reference.use)
(variable_declarator value: (member_expression object: [(this) (identifier)] property: (property_identifier) @name) @reference.use)
(assignment_expression right: (member_expression object: [(this) (identifier)] property: (property_identifier) @name) @reference.use)
(return_statement (member_expression object: [(this) (identifier)] property: (property_identifier) @name) @reference.use)
(array (member_expression object: [(this) (identifier)] property: (property_identifier) @name) @reference.use)
; a member compared or matched, as a constant's keys are read (`event.key
; === KEYS.ENTER`, `case Align.LEFT:`)
(binary_expression left: (member_expression object: [(this) (identifier)] property: (property_identifier) @name) @reference.use operator: ["===" "!==" "==" "!="])
(binary_expression operator: ["===" "!==" "==" "!="] right: (member_expression object: [(this) (identifier)] property: (property_identifier) @name) @reference.use)
(switch_case value: (member_expression object: [(this) (identifier)] property: (property_identifier) @name) @reference.use)

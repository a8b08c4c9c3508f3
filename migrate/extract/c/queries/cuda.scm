; Facts of C/C++/CUDA source. Comments and string literals are leaves, so nothing
; inside them is ever captured.

(call_expression function: (identifier) @reference.call)
(call_expression function: (qualified_identifier name: (identifier) @reference.call))
(call_expression function: (template_function name: (identifier) @reference.call))
(call_expression function: (qualified_identifier name: (template_function name: (identifier) @reference.call)))
(call_expression function: (qualified_identifier name: (qualified_identifier name: (identifier) @reference.call)))
(call_expression function: (qualified_identifier name: (qualified_identifier name: (template_function name: (identifier) @reference.call))))
(call_expression function: (field_expression field: (field_identifier) @reference.member))
(identifier) @reference.identifier
(type_identifier) @reference.type
(namespace_identifier) @reference.namespace

(preproc_include path: (_) @include)

(function_definition) @definition.function
(call_expression (kernel_call_syntax)) @launch
(gnu_asm_expression) @asm

(preproc_def name: (identifier) @macro.name value: (preproc_arg)? @macro.value) @macro
(preproc_function_def value: (preproc_arg) @macro.body)
(preproc_function_def name: (identifier) @macro.name)

[(preproc_if) (preproc_ifdef)] @conditional

(binary_expression) @binary
(for_statement) @for
(template_function) @template
(template_type) @template
(declaration) @declaration
[(optional_parameter_declaration) (field_declaration) (enumerator)] @binding
(parameter_declaration) @declaration
(assignment_expression) @assign
(namespace_alias_definition) @namespace_alias
[(type_definition) (alias_declaration)] @typedef
(number_literal) @number

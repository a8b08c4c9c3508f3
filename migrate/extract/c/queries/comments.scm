(comment) @comment
(preproc_arg) @macro

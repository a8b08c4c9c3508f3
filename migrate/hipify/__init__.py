"""AMD's hipify-perl: the one module that runs it (tool.py), its output parsed (parse.py), a CUDA
lexer for comments and strings (lexer.py), its view compared with the rule base (compare.py),
the scan pass (scan_pass.py), and convert with its to-do list (convert.py, todo.py).
"""

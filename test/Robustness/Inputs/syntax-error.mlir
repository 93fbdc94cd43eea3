// A syntax error: the argument list is not closed.
func.func @f( {

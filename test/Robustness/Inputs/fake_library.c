/* A shared library that looks like one from octet-compile to octet-run
 * --library: an embedded signature (its text from -DSIGNATURE) and the
 * packed entry point. Used by test/Robustness/octet-run-library-signature.test
 * to give octet-run signatures octet-compile never writes. */
const char octet_signature_f[] = SIGNATURE;
void _octet_packed_f(void **args) { (void)args; }

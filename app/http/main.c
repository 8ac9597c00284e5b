/* main.c: bin/askql-fcgi, one FastCGI worker process (placeholder until http layer lands). */
int main(void) { return 0; }

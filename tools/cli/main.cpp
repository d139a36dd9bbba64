// rangereplay launcher (placeholder until the CLI lands).
#include <cstdio>
int main() { std::puts("rangereplay: not yet implemented"); return 2; }

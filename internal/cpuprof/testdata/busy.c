/* A process whose CPU goes to one named function: the profiler must find
   walab_busy_spin as its top user frame. */
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noinline)) void walab_busy_spin(unsigned long n) {
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

int main(int argc, char **argv) {
	long seconds = argc > 1 ? atol(argv[1]) : 30;
	for (long r = 0; r < seconds * 20; r++)
		walab_busy_spin(20000000UL);
	return 0;
}

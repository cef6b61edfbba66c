/* Coroutines with makecontext/swapcontext: drive() resumes producer() three
 * times (each time it produces one item and yields), calling
 * consumer_step() after each; producer() then returns, and glibc resumes
 * drive() through uc_link.  after() must hang under main, and the
 * coroutine's calls under drive(), where it was first resumed. */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

static ucontext_t main_ctx, co_ctx;
static volatile int sink;

__attribute__((noinline)) static void produce_item(void) { sink++; }
__attribute__((noinline)) static void consumer_step(void) { sink++; }
__attribute__((noinline)) static void after(void) { sink++; }

__attribute__((noinline)) static void yield(void)
{
	swapcontext(&co_ctx, &main_ctx);
}

__attribute__((noinline)) static void producer(void)
{
	for (int i = 0; i < 3; i++) {
		produce_item();
		yield();
	}
}

__attribute__((noinline)) static void drive(void)
{
	static char stack[256 * 1024];
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = sizeof stack;
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, producer, 0);
	for (int i = 0; i < 4; i++) {
		swapcontext(&main_ctx, &co_ctx);
		consumer_step();
	}
}

int main(void)
{
	drive();
	after();
	after();
	printf("%d\n", sink);
	return 0;
}

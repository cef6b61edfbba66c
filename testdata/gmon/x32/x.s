	# A 32-bit x86 program without libc for tests/gmon-32bit.t: functions
	# calling each other (beta is static), linked with ld -m elf_i386.
	.text
	.globl _start
	.type _start,@function
_start:
	call main
	movl $1, %eax
	int $0x80
	.globl main
	.type main,@function
main:
	call alpha
	call beta
	ret
	.globl alpha
	.type alpha,@function
alpha:
	nop
	nop
	call gamma
	ret
	.type beta,@function
beta:
	call gamma
	call alpha
	ret
	.globl gamma
	.type gamma,@function
gamma:
	.fill 64,1,0x90
	ret

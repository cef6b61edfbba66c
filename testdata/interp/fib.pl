% fib(20): 21,891 calls of fib/2.
fib(0, 0).
fib(1, 1).
fib(N, F) :-
    N > 1,
    A is N - 1, B is N - 2,
    fib(A, FA), fib(B, FB),
    F is FA + FB.

:- initialization((fib(20, F), print(F), nl), main).

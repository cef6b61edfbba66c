% N queens by selection with backtracking: every solution of 6 queens.
queens(N, Qs) :- range(1, N, Ns), place(Ns, [], Qs).
place([], Qs, Qs).
place(Unplaced, Safe, Qs) :- sel(Q, Unplaced, R), no_attack(Q, Safe, 1), place(R, [Q|Safe], Qs).
no_attack(_, [], _).
no_attack(Q, [Q1|Qs], D) :- Q =\= Q1 + D, Q =\= Q1 - D, D1 is D + 1, no_attack(Q, Qs, D1).
sel(X, [X|T], T).
sel(X, [H|T], [H|R]) :- sel(X, T, R).
range(L, H, [L|T]) :- L < H, L1 is L + 1, range(L1, H, T).
range(H, H, [H]).
?- queens(6, Qs).

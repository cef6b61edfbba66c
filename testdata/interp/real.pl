/*  A small Prolog workload with backtracking everywhere: n-queens by
    generate-and-test, a DCG tokenizer, findall/msort, if-then-else with
    failing conditions, negation, exceptions caught, mutual recursion.  */

queens(N, Qs) :-
    numlist(1, N, Ns),
    permutation_(Ns, Qs),
    safe(Qs).

permutation_([], []).
permutation_(L, [X|Xs]) :- select_(X, L, R), permutation_(R, Xs).

select_(X, [X|T], T).
select_(X, [H|T], [H|R]) :- select_(X, T, R).

safe([]).
safe([Q|Qs]) :- no_attack(Q, Qs, 1), safe(Qs).

no_attack(_, [], _).
no_attack(Q, [Q1|Qs], D) :-
    Q =\= Q1 + D, Q =\= Q1 - D,
    D1 is D + 1,
    no_attack(Q, Qs, D1).

% A tokenizer written as a DCG.
tokens([T|Ts]) --> blanks, token(T), !, tokens(Ts).
tokens([]) --> blanks.

blanks --> [C], { code_type(C, space) }, !, blanks.
blanks --> [].

token(num(N)) --> digits(Ds), { Ds \== [], number_codes(N, Ds) }.
token(word(W)) --> letters(Ls), { Ls \== [], atom_codes(W, Ls) }.
token(punct(P)) --> [C], { \+ code_type(C, alnum), char_code(P, C) }.

digits([D|Ds]) --> [D], { code_type(D, digit) }, !, digits(Ds).
digits([]) --> [].

letters([L|Ls]) --> [L], { code_type(L, alpha) }, !, letters(Ls).
letters([]) --> [].

classify(X, Class) :-
    (   X > 100 -> Class = big
    ;   X > 10 -> Class = medium
    ;   Class = small
    ).

even(0).
even(N) :- N > 0, M is N - 1, odd(M).
odd(N) :- N > 0, M is N - 1, even(M).

checked(X) :-
    catch(check(X), error(domain_error(_, _), _), fail).
check(X) :- X mod 4 =:= 0, !, domain_error(not_multiple_of_four, X).
check(_).

main :-
    findall(Qs, queens(6, Qs), All),
    length(All, NQ),
    format("queens(6): ~w solutions~n", [NQ]),
    atom_codes('let x1 = 42 + y * (7 - 3);', Cs),
    phrase(tokens(Ts), Cs),
    length(Ts, NT),
    format("tokens: ~w~n", [NT]),
    findall(C, (member(X, [3, 50, 700, 12, 1]), classify(X, C)), Cl),
    msort(Cl, Sorted),
    format("classes: ~w~n", [Sorted]),
    (   even(20), \+ odd(20) -> writeln(parity_ok) ; writeln(parity_bad) ),
    findall(X, (between(1, 12, X), checked(X)), Ok),
    format("not multiples of four: ~w~n", [Ok]).

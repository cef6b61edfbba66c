% Ports counted by hand.  ?- q(X): q is called once; p(1) exits, X > 1
% fails, backtracking redoes p (redo 1); p(2) exits, q exits: solution 1.
% Asking for more redoes q (1) and p (2); p(3), solution 2; redo q (2),
% redo p (3); p has no clause left and fails, so does q.
p(1).
p(2).
p(3).
q(X) :- p(X), X > 1.
?- q(X).

% A fact table of 10 facts enumerated by forall/2: SWI's profiler counts
% 1 call and 9 redos of fact/1 (the last fact leaves no choice point).
fact(1). fact(2). fact(3). fact(4). fact(5).
fact(6). fact(7). fact(8). fact(9). fact(10).

main :- forall(fact(_), true).

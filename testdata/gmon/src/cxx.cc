// C++ names: overloads, templates, namespaces, an anonymous namespace.
#include <string>
volatile double sink;
void burn(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; sink = s; }
template <typename T> void tf(T x) { burn(100000 + (long)x); }
namespace ns {
struct K {
	void m(int i) { burn(90000 + i); }
	static void s(long i) { burn(80000 + i); }
};
}
namespace { void anon(int i) { burn(70000 + i); } }
void takes(const std::string &s) { burn(60000 + (long)s.size()); }
int main()
{
	ns::K k;
	std::string str("abc");
	for (int i = 0; i < 50; i++) {
		tf<int>(i);
		tf<double>(i);
		k.m(i);
		ns::K::s(i);
		anon(i);
		takes(str);
	}
	return 0;
}

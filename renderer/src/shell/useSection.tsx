import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { defaultSectionId, isSectionId } from './sectionIds';

export interface Location {
  section: string;
  params: Record<string, string>;
}

function readLocation(): Location {
  const id = window.location.pathname.replace(/^\/+/, '').split('/')[0];
  return {
    section: isSectionId(id) ? id : defaultSectionId,
    params: Object.fromEntries(new URLSearchParams(window.location.search)),
  };
}

type Navigate = (section: string, params?: Record<string, string>) => void;
const NavigationContext = createContext<{ location: Location; navigate: Navigate } | undefined>(undefined);

/** The section and its selection live in the URL (/tools?tool=…), so reloads and links keep them. */
export function NavigationProvider({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState(readLocation);
  useEffect(() => {
    const onPop = () => setLocation(readLocation());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback<Navigate>((section, params = {}) => {
    const search = new URLSearchParams(params).toString();
    const url = `/${section}${search ? `?${search}` : ''}`;
    if (`${window.location.pathname}${window.location.search}` !== url) window.history.pushState(null, '', url);
    setLocation({ section, params });
  }, []);
  const value = useMemo(() => ({ location, navigate }), [location, navigate]);
  return <NavigationContext.Provider value={value}>{children}</NavigationContext.Provider>;
}

function useNavigation() {
  const value = useContext(NavigationContext);
  if (!value) throw new Error('useNavigation outside NavigationProvider');
  return value;
}

export function useLocation(): Location {
  return useNavigation().location;
}

export function useNavigate(): Navigate {
  return useNavigation().navigate;
}
